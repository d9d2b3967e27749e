// Denoise benchmark (npm run bench:denoise), per back end available:
//  (a) quality: SI-SDR improvement over HTTP on the shared 0 dB English clip (vs its clean
//      clip), and on Arabic keyword clips (10 per speaker, concatenated) mixed in JS at
//      0 and 5 dB SNR with each real noise of ../shared/testdata/noise;
//  (b) speed: a whole POST /denoise of a 60-second MP3 as a multiple of real time, plus
//      where the time goes (ffmpeg decode alone, the denoiser alone);
//  (c) memory: peak RSS growth of the server process during a 15-minute upload;
//  (d) long files: time to first byte of the answer (and after the upload's last byte) for
//      1-, 5- and 15-minute MP3s: the WAV is sent once the whole file is denoised.
// --parts=quality,speed,ttfb,memory picks parts (default all); --ttfb-seconds=60,300,899.
// The default back end (config/default.json: dfn3, its models bundled) runs with the
// default config and no SAWT_MODELS_DIR; gtcrn takes its model from ../shared/models.
// Needs ../shared (test data; the GTCRN model for the gtcrn back end). Options:
// --backends=rnnoise,gtcrn,dfn3  --runs=N (speed repetitions, default 3)  --no-memory
// --memory-all (the 15-minute upload for GTCRN too: minutes at its speed)
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ModelFiles } from '@sawt/core';
import { machine, pct, round, startBenchServer, writeResults, here } from './harness.js';
import { siSdr } from '../test/denoise/helpers.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => { const [k, v] = a.replace(/^--/, '').split('='); return [k, v ?? true]; }));
const shared = path.resolve(here, '../../shared');
const noiseDir = path.join(shared, 'testdata/noise');
const cmdDir = path.join(shared, 'testdata/arabic-speech-commands');
const sharedModels = path.join(shared, 'models');
if (!existsSync(path.join(noiseDir, 'noisy_speech_en_snr0.wav'))) {
  console.error(`bench:denoise needs the shared test data at ${noiseDir}`);
  process.exit(1);
}
const defaultBackend = JSON.parse(readFileSync(path.join(here, '../config/default.json'), 'utf8')).plugins.find((p) => p.resolve === '@sawt/plugin-denoise').options.backend;
const bundled = new ModelFiles(process.env.SAWT_MODELS_DIR ?? path.join(here, '../models'));
const available = [defaultBackend, 'rnnoise', ...(existsSync(path.join(sharedModels, 'denoise/gtcrn/gtcrn_simple.onnx')) ? ['gtcrn'] : []),
  ...(bundled.missing(['enc.onnx', 'erb_dec.onnx', 'df_dec.onnx'].map((f) => `denoise/dfn3/${f}`)).length === 0 ? ['dfn3'] : [])]
  .filter((b, i, all) => all.indexOf(b) === i);
const backends = args.backends ? String(args.backends).split(',').filter((b) => available.includes(b)) : available;
const runs = Number(args.runs ?? 3);
const work = mkdtempSync(path.join(tmpdir(), 'sawt-bench-denoise-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

// ---- audio helpers ----
/** Decodes any file to mono float samples at `rate` with ffmpeg. */
function decode(file, rate) {
  const b = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-ac', '1', '-ar', String(rate), '-f', 'f32le', 'pipe:1'], { maxBuffer: 1 << 30 });
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}
function wavPcm16(x, rate) {
  const b = Buffer.alloc(44 + x.length * 2);
  b.write('RIFF', 0); b.writeUInt32LE(36 + x.length * 2, 4); b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28); b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write('data', 36); b.writeUInt32LE(x.length * 2, 40);
  for (let i = 0; i < x.length; i++) b.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(x[i] * 32768))), 44 + i * 2);
  return b;
}
/** PCM16 samples of a WAV response, as floats. */
function wavSamples(buf) {
  let off = 12;
  while (off + 8 <= buf.length) {
    const id = buf.toString('ascii', off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    if (id === 'data') {
      const d = buf.subarray(off + 8, off + 8 + size);
      const y = new Float32Array(d.length >> 1);
      for (let i = 0; i < y.length; i++) y[i] = d.readInt16LE(i * 2) / 32768;
      return y;
    }
    off += 8 + size + (size % 2);
  }
  throw new Error('no data chunk');
}
const power = (x) => x.reduce((s, v) => s + v * v, 0) / x.length;
/** speech + noise scaled to `snr` dB (noise looped to length); peak kept under 0.95. */
function mix(speech, noise, snr) {
  const g = Math.sqrt(power(speech) / (power(noise) * 10 ** (snr / 10)));
  const y = new Float32Array(speech.length);
  let peak = 0;
  for (let i = 0; i < y.length; i++) { y[i] = speech[i] + g * noise[i % noise.length]; peak = Math.max(peak, Math.abs(y[i])); }
  if (peak > 0.95) for (let i = 0; i < y.length; i++) y[i] *= 0.95 / peak;
  return y;
}

// ---- HTTP upload, streamed from a file or a buffer ----
function upload(port, key, source, { keep = true } = {}) {
  const boundary = '----sawtbench' + Math.random().toString(16).slice(2);
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="a"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const size = typeof source === 'string' ? statSync(source).size : source.length;
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let sentAt = null;
    let firstByteAt = null;
    const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/denoise', method: 'POST', agent: false,
      headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length } }, (res) => {
      const chunks = [];
      let bytes = 0;
      res.on('data', (c) => { firstByteAt ??= performance.now(); bytes += c.length; if (keep || res.statusCode !== 200) chunks.push(c); });
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new Error(`denoise answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`));
        resolve({ ms: performance.now() - t0, ttfbMs: firstByteAt - t0, afterUploadMs: firstByteAt - sentAt, uploadMs: sentAt - t0, bytes, body: keep ? Buffer.concat(chunks) : null });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.write(head);
    if (typeof source === 'string') {
      const rs = createReadStream(source);
      rs.pipe(req, { end: false });
      rs.on('end', () => req.end(tail, () => (sentAt = performance.now())));
      rs.on('error', reject);
    } else req.end(Buffer.concat([source, tail]), () => (sentAt = performance.now()));
  });
}

// ---- fixtures ----
const clean48 = decode(path.join(noiseDir, 'clean_speech_en.wav'), 48000);
const noisyEnFile = path.join(noiseDir, 'noisy_speech_en_snr0.wav');
const noisy48 = decode(noisyEnFile, 48000);
const speakers = {};
for (const f of readdirSync(cmdDir).filter((f) => f.endsWith('.wav')).sort()) {
  const spk = f.replace(/\.wav$/, '').split('_').slice(-2).join('_');
  (speakers[spk] ??= []).length < 10 && speakers[spk].push(f);
}
const arabic = Object.entries(speakers).map(([spk, files]) => {
  const parts = files.map((f) => decode(path.join(cmdDir, f), 16000));
  const x = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { x.set(p, o); o += p.length; }
  return { speaker: spk, clips: files.length, speech: x };
});
const noises = readdirSync(noiseDir).filter((f) => f.endsWith('.wav') && !/speech/.test(f)).sort()
  .map((f) => ({ name: f.replace(/\.wav$/, ''), x: decode(path.join(noiseDir, f), 16000) }));
const mixes = [];
for (const a of arabic) for (const n of noises) for (const snr of [0, 5]) {
  const m = mix(a.speech, n.x, snr);
  mixes.push({ speaker: a.speaker, noise: n.name, snr, clean: a.speech, noisy: m, wav: wavPcm16(m, 16000) });
}
const mp3s = {
  mono60: path.join(work, 'mono60.mp3'), stereo60: path.join(work, 'stereo60.mp3'), mono900: path.join(work, 'mono900.mp3'),
};
const mkMp3 = (out, seconds, channels) => execFileSync('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '-1', '-i', noisyEnFile, '-t', String(seconds),
  '-ar', '44100', '-ac', String(channels), '-c:a', 'libmp3lame', '-b:a', '128k', out]);
mkMp3(mp3s.mono60, 60, 1);
mkMp3(mp3s.stereo60, 60, 2);
const parts = new Set(String(args.parts ?? 'quality,speed,ttfb,memory').split(','));
if (args['no-memory']) parts.delete('memory');
const ttfbSeconds = String(args['ttfb-seconds'] ?? '60,300,899').split(',').map(Number);
if (parts.has('memory')) mkMp3(mp3s.mono900, 899, 1);
const ttfbFiles = parts.has('ttfb') ? ttfbSeconds.map((sec) => {
  const file = sec === 899 && parts.has('memory') ? mp3s.mono900 : path.join(work, `ttfb${sec}.mp3`);
  if (file !== mp3s.mono900) mkMp3(file, sec, 1);
  return { seconds: sec, file };
}) : [];

const results = { name: 'denoise', date: new Date().toISOString(), machine: machine(), defaultBackend, backends: {}, parts: {} };

// ---- where the time goes, outside the server ----
{
  const t0 = performance.now();
  execFileSync('ffmpeg', ['-v', 'error', '-i', mp3s.mono60, '-ac', '1', '-ar', '48000', '-f', 'f32le', '-y', '/dev/null']);
  results.parts.ffmpegDecode60sMp3To48kMs = round(performance.now() - t0, 0);
  const { RnnoiseDenoiser } = await import('../plugins/denoise/dist/index.js');
  const den = new RnnoiseDenoiser();
  const x = decode(mp3s.mono60, 48000);
  const timeOne = async () => {
    const t1 = performance.now();
    const s = await den.open(1);
    const opened = performance.now() - t1;
    for (let i = 0; i < x.length; i += 16384) await s.process(x.slice(i, i + 16384)); // ffmpeg's pipe chunks: 64 KB
    await s.flush();
    s.close();
    return { openMs: opened, totalMs: performance.now() - t1 };
  };
  await timeOne();
  const r = [];
  for (let i = 0; i < runs; i++) r.push(await timeOne());
  const med = pct(r.map((v) => v.totalMs), 50);
  results.parts.rnnoiseWorker60s = { sessionOpenMs: round(pct(r.map((v) => v.openMs), 50), 1), totalMs: round(med, 0), xRealTime: round(60000 / med, 1) };
  await den.dispose?.();
}

for (const backend of backends) {
  console.error(`bench:denoise: ${backend}…`);
  // The default back end exactly as a fresh clone runs it (only the price set to 0).
  const srv = await startBenchServer({ env: {
    ...(backend === 'gtcrn' && { SAWT_MODELS_DIR: sharedModels }),
    SAWT_BENCH_PLUGIN_OPTIONS: JSON.stringify({ '@sawt/plugin-denoise': { ...(backend !== defaultBackend && { backend }), pricePerMinute: 0 } }),
  } });
  const out = { quality: {}, speed: {}, memory: null, timeToFirstByte: [] };
  try {
    // (a) quality
    if (parts.has('quality')) {
    const en = await upload(srv.port, srv.key, noisyEnFile);
    const enOut = wavSamples(en.body);
    const b = siSdr(clean48, noisy48), a = siSdr(clean48, enOut);
    out.quality.english_snr0 = { before: round(b), after: round(a), improvement: round(a - b) };
    const rows = [];
    for (const m of mixes) {
      const r = await upload(srv.port, srv.key, m.wav);
      const y = wavSamples(r.body);
      const before = siSdr(m.clean, m.noisy), after = siSdr(m.clean, y);
      rows.push({ speaker: m.speaker, noise: m.noise, snr: m.snr, before: round(before), after: round(after), improvement: round(after - before) });
    }
    out.quality.arabic = rows;
    const mean = (xs) => round(xs.reduce((s, v) => s + v, 0) / xs.length);
    out.quality.arabicMeanImprovement = Object.fromEntries([0, 5].map((snr) => [`snr${snr}`, mean(rows.filter((r) => r.snr === snr).map((r) => r.improvement))]));
    }
    // (b) speed
    // GTCRN is a few times real time only (one ONNX run per 16 ms frame): one mono run keeps the bench short.
    const slow = backend === 'gtcrn';
    for (const [name, file] of !parts.has('speed') ? [] : slow ? [['mono60', mp3s.mono60]] : [['mono60', mp3s.mono60], ['stereo60', mp3s.stereo60]]) {
      if (!slow) await upload(srv.port, srv.key, file, { keep: false }); // warm
      const ms = [];
      for (let i = 0; i < (slow ? 1 : runs); i++) ms.push((await upload(srv.port, srv.key, file, { keep: false })).ms);
      const med = pct(ms, 50);
      out.speed[`mp3_44k_${name}`] = { medianMs: round(med, 0), xRealTime: round(60000 / med, 1), runsMs: ms.map((v) => round(v, 0)) };
    }
    // (d) long files: the answer starts only once the whole file is denoised.
    for (const { seconds, file } of slow ? [] : ttfbFiles) {
      const r = await upload(srv.port, srv.key, file, { keep: false });
      out.timeToFirstByte.push({ audioSeconds: seconds, uploadMB: round(statSync(file).size / 2 ** 20, 1), uploadMs: round(r.uploadMs, 0), ttfbMs: round(r.ttfbMs, 0),
        afterUploadMs: round(r.afterUploadMs, 0), totalMs: round(r.ms, 0), xRealTime: round((seconds * 1000) / r.ttfbMs, 1) });
      console.error(`bench:denoise: ${backend} ${seconds} s: first byte after ${round(r.ttfbMs / 1000, 1)} s`);
    }
    // (c) memory (15 minutes)
    if (parts.has('memory') && (!slow || args['memory-all'])) {
      const base = await srv.ask('rss-reset', 'rss-reset');
      const r = await upload(srv.port, srv.key, mp3s.mono900, { keep: false });
      const peak = await srv.ask('rss', 'rss');
      out.memory = { upload: '14:59 MP3 44.1 kHz mono 128 kbps', uploadMB: round(statSync(mp3s.mono900).size / 2 ** 20, 1), responseMB: round(r.bytes / 2 ** 20, 1),
        ms: round(r.ms, 0), ttfbMs: round(r.ttfbMs, 0), xRealTime: round(899000 / r.ms, 1), rssBeforeMB: round(base.rss / 2 ** 20, 1), rssPeakMB: round(peak.peak / 2 ** 20, 1), peakGrowthMB: round((peak.peak - base.rss) / 2 ** 20, 1) };
    }
  } finally {
    await srv.stop();
  }
  results.backends[backend] = out;
}
results.command = `npm run bench:denoise${process.argv.length > 2 ? ' -- ' + process.argv.slice(2).join(' ') : ''}`;
writeResults('denoise', results);
