// The clients of the soak (bench/soak.js): one function per kind of traffic, each
// returning what happened to one request as { kind, status, outcome, detail }.
// outcome: ok | aborted (the client gave up on purpose) | limited (429) |
// refused (other 4xx) | server-error (5xx, an error message/close code saying
// so) | disconnected (the server dropped a client that had not given up) | timeout.
import http from 'node:http';
import WebSocket from 'ws';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const REQUEST_TIMEOUT_MS = 120_000;

/** One multipart/form-data body from text fields and file fields (Buffers). */
export function multipartBody(fields, files) {
  const boundary = `----sawtsoak${Math.random().toString(16).slice(2)}`;
  const parts = [];
  for (const [k, v] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  for (const [k, v] of Object.entries(files)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"; filename="${k}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`), v, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}

/**
 * One HTTP request over its own connection. `abort`: { atUploadFraction } gives up
 * part-way through sending the body, { afterResponseBytes } part-way through the
 * answer, { afterMs } at a moment. `slowReadMs`: pause that long after each of the
 * first chunks of the answer (a slow reader). JSON answers are kept (≤ 64 KiB).
 */
export function httpRequest({ port, method = 'POST', path, headers = {}, body = null, abort = null, slowReadMs = 0 }) {
  return new Promise((resolve) => {
    let settled = false;
    let aborted = false;
    let status = null;
    let bytes = 0;
    let json = '';
    const finish = (outcome, detail = null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, bytes, outcome, detail, json });
    };
    const giveUp = () => {
      aborted = true;
      req.destroy();
      finish('aborted');
    };
    const req = http.request({ host: '127.0.0.1', port, method, path, agent: false, headers: { ...headers, ...(body ? { 'content-length': body.length } : {}) } }, (res) => {
      status = res.statusCode;
      let chunks = 0;
      res.on('data', (d) => {
        bytes += d.length;
        if (/json/.test(res.headers['content-type'] ?? '') && json.length < 65536) json += d.toString('utf8');
        if (abort?.afterResponseBytes !== undefined && bytes >= abort.afterResponseBytes) return giveUp();
        if (slowReadMs && chunks++ < 20) {
          res.pause();
          setTimeout(() => res.resume(), slowReadMs);
        }
      });
      res.on('end', () => finish(classify(status)));
      res.on('error', (e) => (aborted ? finish('aborted') : finish('disconnected', e.message)));
      res.on('close', () => {
        if (!res.complete && !aborted) finish('disconnected', `response cut after ${bytes} bytes`);
      });
    });
    req.on('error', (e) => (aborted ? finish('aborted') : finish('disconnected', e.message)));
    const timer = setTimeout(() => {
      aborted = true;
      req.destroy();
      finish('timeout');
    }, REQUEST_TIMEOUT_MS);
    if (abort?.afterMs !== undefined) setTimeout(() => !settled && giveUp(), abort.afterMs);
    if (!body) return req.end();
    // The body goes in 64 KiB pieces, so an upload can be abandoned part-way.
    (async () => {
      const stopAt = abort?.atUploadFraction !== undefined ? Math.floor(body.length * abort.atUploadFraction) : Infinity;
      for (let off = 0; off < body.length && !settled; off += 65536) {
        if (off >= stopAt) return giveUp();
        const ok = req.write(body.subarray(off, off + 65536));
        if (!ok) await new Promise((r) => req.once('drain', r));
        if (stopAt !== Infinity) await sleep(5);
      }
      if (!settled) req.end();
    })().catch(() => {});
  });
}

export function classify(status) {
  if (status >= 500) return 'server-error';
  if (status === 429) return 'limited';
  if (status >= 400) return 'refused';
  return 'ok';
}

/**
 * One WebSocket session: init, text in a few pieces, flush, until isFinal, then
 * closeConnection. `abortAfterMs`: terminate the socket then. `pauseMs`: stop
 * reading for that long after the first audio (a slow reader).
 */
export function wsSession({ port, key, voiceId, modelId, text, abortAfterMs = null, pauseMs = 0 }) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/websocket/text-to-speech?x-api-key=${encodeURIComponent(key)}`);
    let settled = false;
    let audio = 0;
    let paused = false;
    const finish = (outcome, detail = null, status = null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, bytes: audio, outcome, detail });
      if (ws.readyState === WebSocket.OPEN) ws.close(1000);
    };
    const timer = setTimeout(() => {
      ws.terminate();
      finish('timeout');
    }, REQUEST_TIMEOUT_MS);
    ws.on('unexpected-response', (_req, res) => finish(classify(res.statusCode), `upgrade refused ${res.statusCode}`, res.statusCode));
    ws.on('error', (e) => finish('disconnected', e.message));
    ws.on('close', (code) => {
      if (code === 1011 || code === 1006) finish(code === 1011 ? 'server-error' : 'disconnected', `close ${code}`);
      else finish('disconnected', `close ${code} before isFinal`);
    });
    ws.on('open', () => {
      ws.send(JSON.stringify({ type: 'initConnection', voice_id: voiceId, model_id: modelId, output_format: ['pcm_16000', 'pcm_24000', 'pcm_22050'][Math.floor(Math.random() * 3)] }));
      if (abortAfterMs !== null) {
        setTimeout(() => {
          if (settled) return;
          ws.terminate();
          finish('aborted');
        }, abortAfterMs);
      }
    });
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      if (m.type === 'connectionInitialized') {
        const words = text.split(' ');
        const cut = Math.max(1, Math.floor(words.length / 2));
        ws.send(JSON.stringify({ type: 'text', text: `${words.slice(0, cut).join(' ')} `, try_trigger_generation: true }));
        ws.send(JSON.stringify({ type: 'text', text: words.slice(cut).join(' '), flush: true }));
      } else if (m.type === 'error') {
        const code = Number(m.errorCode);
        finish(code >= 50000 ? 'server-error' : code >= 42900 && code < 43000 ? 'limited' : 'refused', `${m.errorCode} ${m.errorMessage}`, Math.floor(code / 100));
      } else if (typeof m.audio === 'string') {
        audio += Buffer.byteLength(m.audio, 'base64');
        if (pauseMs && !paused) {
          paused = true;
          ws._socket?.pause();
          setTimeout(() => ws._socket?.resume(), pauseMs);
        }
        if (m.isFinal) {
          ws.send(JSON.stringify({ type: 'closeConnection' }));
          finish('ok', null, 200);
        }
      }
    });
  });
}
