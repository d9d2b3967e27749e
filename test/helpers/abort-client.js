// A client that walks away: a multipart upload sent in slow pieces over a real
// socket, cut (the socket destroyed) after `abortAfterMs`, whether the body is
// still being sent or the server is working on it or answering.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export function multipartBody(fields = {}, files = {}) {
  const boundary = `----sawt${randomUUID().replace(/-/g, '')}`;
  const parts = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const [k, v] of Object.entries(files)) {
    parts.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"; filename="${k}.bin"\r\ncontent-type: application/octet-stream\r\n\r\n`), v, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * POSTs `body` to `url` in `chunk`-byte pieces `pauseMs` apart; destroys the
 * request after `abortAfterMs` unless the whole response arrived first.
 * Resolves { phase: 'upload' | 'waiting' | 'response' | 'done', status }.
 */
export function abortingPost(url, { headers, body, chunk = 64 * 1024, pauseMs = 5, abortAfterMs }) {
  return new Promise((resolve) => {
    let phase = 'upload';
    let status = null;
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': body.length } });
    const finish = () => {
      clearTimeout(timer);
      resolve({ phase, status });
    };
    const timer = setTimeout(() => {
      req.destroy();
      finish();
    }, abortAfterMs);
    req.on('error', () => finish());
    req.on('response', (res) => {
      phase = 'response';
      status = res.statusCode;
      res.on('data', () => {});
      res.on('end', () => {
        phase = 'done';
        finish();
      });
      res.on('error', () => finish());
    });
    let off = 0;
    const pump = () => {
      if (req.destroyed) return;
      if (off >= body.length) {
        if (phase === 'upload') phase = 'waiting';
        req.end();
        return;
      }
      req.write(body.subarray(off, off + chunk));
      off += chunk;
      setTimeout(pump, pauseMs);
    };
    pump();
  });
}

/** Files under `dir`, recursively, except per-process owner markers (ONNX Runtime's telemetry files count: the engine removes them). */
export function leftoverFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) out.push(...leftoverFiles(p));
    else if (name !== 'owner.json') out.push(p);
  }
  return out;
}
