// Denoise quality on Arabic speech (npm run bench:denoise-quality; issue 34 item 6): mixes built
// by bench/denoise-mixes.js (one speaker's keyword clips joined; the other speaker's clips summed
// in 4 overlapping streams as babble, seeded pink noise, or a recorded noise of ../shared/testdata/noise;
// 0 and 5 dB SNR over the clip), uploaded to POST /denoise of a default server (DFN3),
// scored by SI-SDR against the clean speech and by DNSMOS P.835 OVRL (bench/dnsmos.js).
// The same mixes also run in-process through the engine: DeepFilterNet3 as enhance.py runs it
// (speech guard and high-SNR blend off) and as configured by default, so the two can be told apart.
// Options: --clips=N (target clips per mix, about 1 s each; default 12)  --offset=N (first clip of
// each speaker: 0 the tuning mixes, 12 other sentences and noise seeds)  --kinds=babble,pink,freesound
// --snrs=0,5  --engine=off,guard,default (in-process variants; default off,default)  --snr-blend-db=N
// (the engine's snrBlendDb)  --quiet (each mix also 26 dB quieter, as a quiet recording)  --no-http  --no-engine
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { createDnsmos } from './dnsmos.js';
import { machine, round, startBenchServer, writeResults, here } from './harness.js';
import { conditions, hasCommands, commandsDir, RATE, siSdr, wavPcm16 } from './denoise-mixes.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => { const [k, v] = a.replace(/^--/, '').split('='); return [k, v ?? true]; }));
if (!hasCommands) {
  console.error(`bench:denoise-quality needs the shared test data at ${commandsDir}`);
  process.exit(1);
}
const clips = Number(args.clips ?? 12);
const QUIET = 10 ** (-26 / 20);

function upload(port, key, wav) {
  const boundary = '----sawtq' + Math.random().toString(16).slice(2);
  const body = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="mix.wav"\r\nContent-Type: audio/wav\r\n\r\n`), wav, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/denoise', method: 'POST', agent: false,
      headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`denoise answered ${res.statusCode}: ${Buffer.concat(chunks).toString().slice(0, 300)}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
function wavFloat(buf) {
  let off = 12;
  while (off + 8 <= buf.length) {
    const id = buf.toString('ascii', off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    if (id === 'data') return Float32Array.from({ length: size >> 1 }, (_, i) => buf.readInt16LE(off + 8 + i * 2) / 32768);
    off += 8 + size + (size % 2);
  }
  throw new Error('no data chunk');
}
function resample(x, from, to) {
  const b = execFileSync('ffmpeg', ['-v', 'error', '-f', 'f32le', '-ar', String(from), '-ac', '1', '-i', 'pipe:0', '-ar', String(to), '-f', 'f32le', 'pipe:1'], { input: Buffer.from(x.buffer, x.byteOffset, x.byteLength), maxBuffer: 1 << 30 });
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}
const toPcm = (x) => Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));

const dnsmos = await createDnsmos(RATE);
if (!dnsmos) console.error('bench:denoise-quality: no DNSMOS model (../shared/models/eval/dnsmos): DNSMOS left out');
const offset = Number(args.offset ?? 0);
const kinds = String(args.kinds ?? 'babble,pink,freesound').split(',');
const snrs = String(args.snrs ?? '0,5').split(',').map(Number);
const mixes = conditions({ clips, offset, kinds, snrs }).flatMap((c) => [
  { ...c, level: 'as recorded' },
  ...(args.quiet ? [{ ...c, level: 'quiet (-26 dB)', clean: c.clean.map((v) => v * QUIET), noisy: c.noisy.map((v) => v * QUIET) }] : []),
]);
const score = async (m, y) => {
  const before = siSdr(m.clean, m.noisy), after = siSdr(m.clean, y);
  const row = { siSdrIn: round(before), siSdrOut: round(after), improvement: round(after - before) };
  if (dnsmos) {
    m.ovrlIn ??= round((await dnsmos(toPcm(m.noisy))).ovrl);
    Object.assign(row, { ovrlIn: m.ovrlIn, ovrlOut: round((await dnsmos(toPcm(y))).ovrl) });
  }
  return row;
};
const key = (m) => ({ speaker: m.speaker, noise: m.kind, snr: m.snr, level: m.level });
const results = { name: 'denoise-quality', date: new Date().toISOString(), machine: machine(), clips, offset, seconds: round(mixes[0].clean.length / RATE, 1), http: [], engine: [] };

if (!args['no-http']) {
  console.error('bench:denoise-quality: POST /denoise (default back end)…');
  const srv = await startBenchServer({ env: { SAWT_BENCH_PLUGIN_OPTIONS: JSON.stringify({ '@sawt/plugin-denoise': { pricePerMinute: 0 } }) } });
  try {
    for (const m of mixes) results.http.push({ ...key(m), ...(await score(m, wavFloat(await upload(srv.port, srv.key, wavPcm16(m.noisy)))) ) });
  } finally {
    await srv.stop();
  }
}
// In-process variants (--engine=off,guard,default): DeepFilterNet3 as enhance.py runs it, with the
// speech guard only, and as configured by default (speech guard and high-SNR blend).
const VARIANTS = { off: { speechGuard: false, snrBlend: false }, guard: { speechGuard: true, snrBlend: false }, default: {} };
if (!args['no-engine']) {
  console.error('bench:denoise-quality: the engine in-process…');
  const { Dfn3Model, DFN3_FILES } = await import('@sawt/native');
  const files = Object.fromEntries(Object.entries(DFN3_FILES).map(([k, f]) => [k, path.join(here, '../models/denoise/dfn3', f)]));
  const extra = args['snr-blend-db'] !== undefined ? { snrBlendDb: Number(args['snr-blend-db']) } : {};
  for (const variant of String(args.engine ?? 'off,default').split(',')) {
    const model = await Dfn3Model.load(files, { ...VARIANTS[variant], ...extra });
    for (const m of mixes) {
      const y = resample(await model.openStream().process(resample(m.noisy, RATE, 48000), true), 48000, RATE);
      results.engine.push({ variant, ...key(m), ...(await score(m, y)) });
    }
  }
}
const table = (rows) => rows.map((r) => `${r.variant === undefined ? 'http ' : `${r.variant} `}${r.speaker} ${r.noise} ${r.snr} dB ${r.level}: SI-SDR ${r.siSdrIn} → ${r.siSdrOut} (${r.improvement >= 0 ? '+' : ''}${r.improvement})${r.ovrlIn !== undefined ? `  OVRL ${r.ovrlIn} → ${r.ovrlOut}` : ''}`).join('\n');
console.log(table(results.http));
console.log(table(results.engine));
results.command = `npm run bench:denoise-quality${process.argv.length > 2 ? ' -- ' + process.argv.slice(2).join(' ') : ''}`;
writeResults('denoise-quality', results);
