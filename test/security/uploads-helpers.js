// Shared by the upload security tests (uploads*.test.js): a server with fast settings,
// multipart requests over real sockets, audio made with ffmpeg at test time.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { defaultConfigPath } from '../helpers/server.js';

/** The default config with denoise (rnnoise: fast) and transport-http options replaced. */
export function uploadConfig({ denoise = {}, http: httpOptions = {} } = {}) {
  const cfg = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  const d = cfg.plugins.find((x) => x.resolve === '@sawt/plugin-denoise');
  d.options = { ...d.options, backend: 'rnnoise', ...denoise };
  const h = cfg.plugins.find((x) => x.resolve === '@sawt/plugin-transport-http');
  h.options = { ...h.options, ...httpOptions };
  return cfg;
}

/** ffmpeg with `args`, writing `file`; returns `file`. */
export function ffmpeg(file, args) {
  execFileSync('ffmpeg', ['-v', 'error', '-y', ...args, file]);
  return file;
}

/** `seconds` of pink noise as a file (its format from `args` or the extension). */
export const noise = (file, seconds, { rate = 16000, args = [] } = {}) =>
  ffmpeg(file, ['-f', 'lavfi', '-i', `anoisesrc=color=pink:amplitude=0.2:sample_rate=${rate}:duration=${seconds}`, '-ac', '1', ...args]);

/**
 * POSTs a multipart form over a fresh socket: `fields` ({name: string}, or an array of
 * [name, value] pairs) and `files` ({name: Buffer}). Resolves {status, headers, body, json}.
 */
export function postMultipart(url, key, { fields = {}, files = {} } = {}) {
  const boundary = '----sawtsec' + Math.random().toString(16).slice(2);
  const parts = [];
  for (const [k, v] of Array.isArray(fields) ? fields : Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  for (const [k, v] of Object.entries(files)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"; filename="upload.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`), v, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const body = Buffer.concat(parts);
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST', agent: false,
      headers: { 'x-api-key': key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const b = Buffer.concat(chunks);
        let json = null;
        try { json = JSON.parse(b.toString('utf8')); } catch { /* audio */ }
        resolve({ status: res.statusCode, headers: res.headers, body: b, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const PREVIEW_TEXT = 'مرحبا بكم في خدمة صوت للنطق العربي.';
export const previewFields = (o = {}) => ({ text: PREVIEW_TEXT, similarity: '0.8', model_id: 'sawt-mini', speed: '1', ...o });
export const cloneFields = (o = {}) => ({ name: 'My voice', text: PREVIEW_TEXT, stability: '0.5', model: 'sawt-mini', ...o });

/** Speech from the server's own TTS (WAV, PCM16 24 kHz mono): a reference that clones and previews accept. */
export async function speechWav(api, key, text) {
  const r = await fetch(`${api}/text-to-speech/sawt-mini`, {
    method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ voice_id: 'egyptian-karim', text, stability: 0.5, streaming: false }),
  });
  if (r.status !== 200) throw new Error(`reference TTS failed: ${r.status} ${await r.text()}`);
  return Buffer.from(await r.arrayBuffer());
}
