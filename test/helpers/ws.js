// WebSocket test helpers: a server with transport-ws configured and a small client.
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { startServer, defaultConfigPath } from './server.js';

export function wsConfig() {
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  if (!config.plugins.some((p) => p.resolve === '@sawt/plugin-transport-ws')) config.plugins.push({ resolve: '@sawt/plugin-transport-ws' });
  return config;
}

export const startWsServer = (t) => startServer(t, { config: wsConfig() });

/** Opens a socket; collects every message (parsed) and the close code. */
export function connect(srv, { query = '', headers = {} } = {}) {
  const url = `${srv.base.replace('http', 'ws')}/api/v1/websocket/text-to-speech${query}`;
  const ws = new WebSocket(url, { headers });
  const messages = [];
  const waiters = [];
  let closeCode = null;
  const closed = new Promise((resolve) => ws.on('close', (code) => { closeCode = code; resolve(code); check(); }));
  function check() {
    for (const w of [...waiters]) {
      const r = w.pred();
      if (r) { waiters.splice(waiters.indexOf(w), 1); w.resolve(r); }
    }
  }
  ws.on('message', (d) => { messages.push(JSON.parse(d.toString())); check(); });
  ws.on('error', () => {});
  const opened = new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  /** Resolves when pred() returns truthy (checked on every message and at close). */
  const until = (pred, ms = 60000) => new Promise((resolve, reject) => {
    const r = pred();
    if (r) return resolve(r);
    const w = { pred, resolve };
    waiters.push(w);
    setTimeout(() => reject(new Error(`timeout; messages: ${JSON.stringify(messages.map((m) => m.type ?? (m.isFinal ? 'final' : 'audio')))} close ${closeCode}`)), ms).unref();
  });
  const send = (obj) => ws.send(typeof obj === 'string' ? obj : JSON.stringify(obj));
  const audio = () => messages.filter((m) => typeof m.audio === 'string');
  const errors = () => messages.filter((m) => m.type === 'error');
  const pcmBytes = () => audio().reduce((n, m) => n + Buffer.from(m.audio, 'base64').length, 0);
  return { ws, messages, opened, closed, until, send, audio, errors, pcmBytes, get closeCode() { return closeCode; } };
}

/** Connects with the key in the query and initializes; resolves the client. */
export async function ready(srv, key, init = {}) {
  const c = connect(srv, { query: `?x-api-key=${encodeURIComponent(key)}` });
  await c.opened;
  c.send({ type: 'initConnection', voice_id: 'fusha-omar', ...init });
  await c.until(() => c.messages.find((m) => m.type === 'connectionInitialized' || m.type === 'error'));
  return c;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
