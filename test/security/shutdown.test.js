// Finding (issue 28, item 6): after SIGTERM new HTTP requests kept getting 200 (and were charged)
// for 10 s while WebSockets drained, then hung for 10 s; the process exited at 2 × shutdownGraceMs;
// /healthz said 200 throughout; WebSocket close codes were 1000 or 1006, not the documented 1001.
// Now, from the signal on: /healthz and every new request get 503 (50001) with Connection: close,
// a new WebSocket is refused, in-flight HTTP and WebSocket work shares one grace period, sessions
// close 1001, and the process exits 0.
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import t from 'tap';
import WebSocket from 'ws';
import { LONG_TEXT, defaultConfigPath } from '../helpers/server.js';
import { freePort, sawtJson, spawnServer } from '../helpers/spawned-server.js';
import { ready } from '../helpers/ws.js';

const GRACE_MS = 4000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const HELD_TEXT = Array(25).fill(LONG_TEXT).join(' ');

/** One request on a connection of its own: status, errorCode, Connection header. */
function request(port, pathName, key) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathName, agent: false, headers: key ? { 'x-api-key': key } : {} }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        let json = null;
        try {
          json = JSON.parse(body);
        } catch {
          json = null;
        }
        resolve({ status: res.statusCode, errorCode: json?.errorCode, connection: res.headers.connection });
      });
    });
    req.on('error', (e) => resolve({ status: e.code }));
    req.end();
  });
}

/** A streaming TTS the client does not read (until `drain()`): in flight until the server ends it. */
function unreadStream(port, key) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v1/text-to-speech/sawt-mini', agent: false, headers: { 'x-api-key': key, 'content-type': 'application/json' } });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`refused: ${res.statusCode}`));
      res.pause();
      const ended = new Promise((done) => req.socket.once('close', () => done(res.complete)));
      resolve({ drain: () => (res.resume(), ended) });
    });
    req.end(JSON.stringify({ voice_id: 'fusha-omar', text: HELD_TEXT, stability: 0.5, streaming: true }));
  });
}

async function scenario(t, workers) {
  const dir = t.testdir();
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  config.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http').options.shutdownGraceMs = GRACE_MS;
  const ws = config.plugins.find((p) => p.resolve === '@sawt/plugin-transport-ws');
  ws.options = { ...ws.options, shutdownGraceMs: GRACE_MS };
  const configPath = path.join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const port = await freePort();
  const env = { SAWT_DATA_DIR: path.join(dir, 'data'), SAWT_CONFIG: configPath };
  const srv = await spawnServer(t, { ...env, SAWT_WORKERS: String(workers), SAWT_PORT: String(port), SAWT_HOST: '127.0.0.1' }, { timeoutMs: 180_000 });
  for (let i = 0; i < 600 && (srv.output().match(/Sawt HTTP API listening/g) ?? []).length < workers; i++) await sleep(200);
  const account = await sawtJson(env, 'accounts', 'create', '--name', 'a', '--plan', 'enterprise', '--balance', '1000');
  const key = (await sawtJson(env, 'keys', 'create', '--account', account.id)).key;

  const stream = await unreadStream(port, key);
  const idle = await ready(srv, key);
  const busy = await ready(srv, key);
  // Far more text than the grace lets it speak: busy until the grace ends.
  for (let i = 0; i < 20; i++) busy.send({ type: 'text', text: HELD_TEXT, flush: true });
  await busy.until(() => busy.audio().length > 0);

  const signalled = Date.now();
  srv.kill('SIGTERM');
  let health = null;
  for (let i = 0; i < 100 && health?.status !== 503; i++) health = await request(port, '/healthz');
  const firstRefusal = Date.now() - signalled;
  t.equal(health.status, 503, `/healthz answers 503 (${firstRefusal} ms after SIGTERM)`);
  t.ok(firstRefusal < 2000, 'at once');
  const healths = await Promise.all(Array.from({ length: 6 }, () => request(port, '/healthz')));
  t.same(healths.map((h) => h.status), Array(6).fill(503), 'every /healthz answer after that is 503, whichever worker answers');
  const models = await request(port, '/api/v1/models', key);
  t.same(models, { status: 503, errorCode: 50001, connection: 'close' }, 'a new request: 503 (50001) with Connection: close');

  const refusedWs = await new Promise((resolve) => {
    const c = new WebSocket(`ws://127.0.0.1:${port}/api/v1/websocket/text-to-speech?x-api-key=${encodeURIComponent(key)}`);
    c.on('unexpected-response', (_req, res) => resolve(res.statusCode));
    c.on('open', () => (c.close(), resolve('opened')));
    c.on('error', (e) => resolve(e.code ?? e.message));
  });
  t.equal(refusedWs, 503, 'a new WebSocket is refused 503');

  t.equal(await idle.closed, 1001, 'an idle WebSocket closes 1001');
  t.equal(await busy.closed, 1001, 'a busy WebSocket closes 1001 once the grace is over');
  const busyClosedAt = Date.now() - signalled;
  t.ok(busyClosedAt >= GRACE_MS - 500, `the busy WebSocket had the grace period (closed after ${busyClosedAt} ms)`);
  t.ok(busyClosedAt < 2 * GRACE_MS - 500, 'within that grace');
  const { code } = await srv.exited;
  const exitedAfter = Date.now() - signalled;
  t.equal(code, 0, 'exit 0');
  t.ok(exitedAfter < 2 * GRACE_MS - 500, `one grace period overall, HTTP and WebSocket work together: exited ${exitedAfter} ms after SIGTERM (grace ${GRACE_MS} ms)`);
  t.equal(await stream.drain(), false, 'the HTTP stream its client did not read was cut when the grace ended (not completed)');
}

t.test('SIGTERM to sawt serve (1 worker)', (t) => scenario(t, 1));
t.test('SIGTERM to sawt serve --workers 2', (t) => scenario(t, 2));
