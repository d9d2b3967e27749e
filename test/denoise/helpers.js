// Shared by the denoise tests: fixtures made with ffmpeg at test time, multipart uploads over real HTTP.
import { leftoverFiles } from '../helpers/abort-client.js';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseWav, repoRoot, startServer } from '../helpers/server.js';

export const shared = path.resolve(repoRoot, '../shared');
export const noiseDir = path.join(shared, 'testdata/noise');
export const hasShared = existsSync(path.join(noiseDir, 'noisy_speech_en_snr0.wav'));

/** Makes an audio file with ffmpeg from a synthesized tone + noise (lavfi), `seconds` long. */
export function makeAudio(file, { seconds = 2, rate = 16000, channels = 1, args = [] } = {}) {
  const layout = channels === 1 ? 'mono' : 'stereo';
  execFileSync('ffmpeg', ['-v', 'error', '-y',
    '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=${rate}:duration=${seconds}`,
    '-f', 'lavfi', '-i', `anoisesrc=color=pink:amplitude=0.1:sample_rate=${rate}:duration=${seconds}`,
    '-filter_complex', `[0][1]amix=inputs=2:normalize=0,aformat=channel_layouts=${layout}`,
    '-ar', String(rate), ...args, file]);
  return file;
}

/** Multipart body parts for one file field. */
export function multipart(field, filename, data, extra = {}) {
  const boundary = '----sawt' + Math.random().toString(16).slice(2);
  const head = Buffer.from(
    Object.entries(extra).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') +
    (field ? `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n` : ''));
  const tail = Buffer.from(`${field ? '\r\n' : ''}--${boundary}--\r\n`);
  return { contentType: `multipart/form-data; boundary=${boundary}`, head, tail, body: Buffer.concat([head, data ?? Buffer.alloc(0), tail]) };
}

/** POSTs a buffer; resolves {status, headers, body}. */
export function post(url, { headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent: false, headers: { ...headers, 'content-length': body.length } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export async function denoise(api, key, data, filename = 'audio.bin') {
  const m = multipart('audio', filename, data);
  return post(`${api}/denoise`, { headers: { 'x-api-key': key, 'content-type': m.contentType }, body: m.body });
}

export const json = (r) => JSON.parse(r.body.toString());

/** Files the denoise plugin left in `dir`. */
/** Files in the server's per-process temp folders under `<dataDir>/tmp` (the owner markers aside). */
export const leftovers = (dataDir) => leftoverFiles(path.join(dataDir, 'tmp'));

/** The default config with the denoise plugin's options replaced. */
export async function configWith(denoiseOptions) {
  const { readFileSync } = await import('node:fs');
  const cfg = JSON.parse(readFileSync(path.join(repoRoot, 'config/default.json'), 'utf8'));
  const p = cfg.plugins.find((x) => x.resolve === '@sawt/plugin-denoise');
  p.options = { ...p.options, ...denoiseOptions };
  return cfg;
}

/** Scale-invariant SDR in dB of `est` against `ref` (Float64 arrays or Int16 views). */
export function siSdr(ref, est) {
  const n = Math.min(ref.length, est.length);
  let dot = 0, rr = 0;
  for (let i = 0; i < n; i++) { dot += ref[i] * est[i]; rr += ref[i] * ref[i]; }
  const a = dot / rr;
  let s = 0, e = 0;
  for (let i = 0; i < n; i++) { const t = a * ref[i]; s += t * t; const d = est[i] - t; e += d * d; }
  return 10 * Math.log10(s / e);
}

export function pcm16(buf) {
  return new Int16Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length - (buf.length % 2)));
}

/**
 * The shared 0 dB noisy speech clip denoised over HTTP by `backend` (server runtime `runtime`):
 * the clean and noisy samples, the response status, the output WAV and its samples.
 */
export async function denoiseSharedClip(t, backend, runtime = {}) {
  const clean = pcm16(parseWav(readFileSync(path.join(noiseDir, 'clean_speech_en.wav'))).data);
  const noisyFile = readFileSync(path.join(noiseDir, 'noisy_speech_en_snr0.wav'));
  const noisy = pcm16(parseWav(noisyFile).data);
  const srv = await startServer(t, { config: await configWith({ backend }), runtime });
  const { key } = await srv.client({ plan: 'enterprise', balance: '10' });
  const r = await denoise(srv.api, key.key, noisyFile, 'noisy.wav');
  const wav = r.status === 200 ? parseWav(r.body) : null;
  return { clean, noisy, status: r.status, wav, out: wav ? pcm16(wav.data) : null };
}
