// Finding (issue 28, item 7): maxConnectionsPerKey and maxConnectionsPerAddress of the WebSocket
// were counted per worker (57 and 122 connections opened against 32 and 64); slow request bodies
// (1 byte every 5 s) were held for Node's default 300 s, with no cap on connections per address.
// Now the counts hold over the whole server (`sawt serve --workers 2`: the primary counts), headers
// must arrive within headersTimeoutMs, a body slower than minBodyRate is cut with 408 (40801), and
// one address may hold at most maxConnectionsPerAddress HTTP connections (429, 42901).
import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import t from 'tap';
import WebSocket from 'ws';
import { SENTENCE, defaultConfigPath } from '../helpers/server.js';
import { childrenOf, holderOf } from '../helpers/processes.js';
import { freePort, sawtJson, spawnServer } from '../helpers/spawned-server.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const PER_KEY = 4;
const WS_PER_ADDRESS = 6;
const HTTP_PER_ADDRESS = 12;

/** Closes `ws` and resolves once it is closed. */
function closeWs(ws) {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    ws.once('close', resolve);
    ws.close();
  });
}

/** A WebSocket: 'open' with its local port, or the HTTP status of a refused upgrade; then initConnection's answer. */
function wsOpen(port, key) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/websocket/text-to-speech?x-api-key=${encodeURIComponent(key)}`);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, errorCode: JSON.parse(body).errorCode }));
    });
    ws.on('error', () => {});
    ws.on('open', () => {
      const localPort = ws._socket.localPort;
      ws.send(JSON.stringify({ type: 'initConnection', voice_id: 'fusha-omar' }));
      ws.once('message', (d) => {
        const m = JSON.parse(d.toString());
        resolve({ status: 101, ws, localPort, message: m.type === 'error' ? m.errorCode : m.type });
      });
    });
  });
}

/** A raw request written at `bytesPerSecond`; resolves with the status line's code (or how it ended) and when. */
function trickle(port, { key, body, bytesPerSecond, headersOnly = false }) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    let timer = null;
    const started = Date.now();
    const done = (how) => {
      clearInterval(timer);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(reply)?.[1]) || how;
      const json = reply.includes('\r\n\r\n') ? reply.slice(reply.indexOf('\r\n\r\n') + 4) : '';
      let errorCode = null;
      try {
        errorCode = JSON.parse(json).errorCode ?? null;
      } catch {
        errorCode = null;
      }
      resolve({ status, errorCode, ms: Date.now() - started, json });
    };
    socket.on('data', (d) => {
      reply += d;
      if (!reply.startsWith('HTTP/1.1 200') && reply.includes('\r\n\r\n')) setTimeout(() => done('answered'), 200);
    });
    socket.on('close', () => done('closed'));
    socket.on('error', () => done('error'));
    socket.on('connect', () => {
      const head = `POST /api/v1/text-to-speech/sawt-mini HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
      if (headersOnly) {
        socket.write(head.slice(0, 40));
        return;
      }
      socket.write(head);
      const buf = Buffer.from(body);
      const step = Math.max(1, Math.round(bytesPerSecond / 10));
      let off = 0;
      timer = setInterval(() => {
        if (off >= buf.length) return clearInterval(timer);
        socket.write(buf.subarray(off, off + step));
        off += step;
      }, 100);
    });
  });
}

t.test('limits hold over the whole server (sawt serve --workers 2)', async (t) => {
  const dir = t.testdir();
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  const httpOpts = config.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http').options;
  Object.assign(httpOpts, { headersTimeoutMs: 1500, minBodyRate: { bytesPerSecond: 2000, graceMs: 1500 }, maxConnectionsPerAddress: HTTP_PER_ADDRESS });
  const ws = config.plugins.find((p) => p.resolve === '@sawt/plugin-transport-ws');
  ws.options = { ...ws.options, maxConnectionsPerKey: PER_KEY, maxConnectionsPerAddress: WS_PER_ADDRESS };
  const configPath = path.join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const port = await freePort();
  const env = { SAWT_DATA_DIR: path.join(dir, 'data'), SAWT_CONFIG: configPath };
  const srv = await spawnServer(t, { ...env, SAWT_WORKERS: '2', SAWT_PORT: String(port), SAWT_HOST: '127.0.0.1' }, { timeoutMs: 180_000 });
  for (let i = 0; i < 600 && (srv.output().match(/Sawt HTTP API listening/g) ?? []).length < 2; i++) await sleep(200);
  const workers = childrenOf(srv.pid);
  const account = await sawtJson(env, 'accounts', 'create', '--name', 'a', '--plan', 'enterprise', '--balance', '100');
  const newKey = async () => (await sawtJson(env, 'keys', 'create', '--account', account.id)).key;
  const key = await newKey();

  await t.test('WebSocket connections per key: at most maxConnectionsPerKey over both workers', async (t) => {
    const opened = [];
    for (let i = 0; i < PER_KEY * 2 + 2; i++) {
      const o = await wsOpen(port, key);
      opened.push(o);
      // A refused socket is closed before the next opens: open ones also count per address.
      if (o.ws && o.message !== 'connectionInitialized') await closeWs(o.ws);
    }
    const answers = opened.map((o) => o.message ?? o.status);
    t.equal(answers.filter((a) => a === 'connectionInitialized').length, PER_KEY, `exactly ${PER_KEY} initialized: ${answers}`);
    t.equal(answers.filter((a) => a === 42901).length, PER_KEY + 2, 'every other one refused 42901');
    const holders = new Set(opened.filter((o) => o.localPort).map((o) => holderOf(workers, port, o.localPort)).filter(Boolean));
    t.comment(`the connections reached ${holders.size} worker(s)`);
    await Promise.all(opened.map((o) => o.ws && closeWs(o.ws)));
    await sleep(500);
    const again = await wsOpen(port, key);
    t.equal(again.message, 'connectionInitialized', 'closing them frees the count');
    again.ws.close();
    await sleep(300);
  });

  await t.test('WebSocket connections per address: at most maxConnectionsPerAddress over both workers', async (t) => {
    const keys = await Promise.all(Array.from({ length: 3 }, newKey));
    const opened = [];
    for (let i = 0; i < WS_PER_ADDRESS + 4; i++) opened.push(await wsOpen(port, keys[i % 3]));
    t.equal(opened.filter((o) => o.status === 101).length, WS_PER_ADDRESS, `${WS_PER_ADDRESS} upgraded`);
    t.same(opened.filter((o) => o.status !== 101).map((o) => [o.status, o.errorCode]), Array(4).fill([429, 42901]), 'the rest refused 429 (42901)');
    await Promise.all(opened.map((o) => o.ws && closeWs(o.ws)));
    await sleep(500);
  });

  await t.test('a body slower than minBodyRate is cut with 408 (40801)', async (t) => {
    const body = JSON.stringify({ voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5 }).padEnd(20_000, ' ');
    const slow = await trickle(port, { key, body, bytesPerSecond: 200 });
    t.equal(slow.status, 408, `cut (${slow.ms} ms)`);
    t.equal(slow.errorCode, 40801);
    const honest = await trickle(port, { key, body: JSON.stringify({ voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5, streaming: false }).padEnd(8_000, ' '), bytesPerSecond: 3000 });
    t.equal(honest.status, 200, `a body slow but above the minimum passes (${honest.ms} ms)`);
  });

  await t.test('headers must arrive within headersTimeoutMs', async (t) => {
    const r = await trickle(port, { key, body: '{}', headersOnly: true });
    t.equal(r.status, 408, `answered 408 after ${r.ms} ms`);
    t.equal(r.errorCode, 40801);
  });

  await t.test('open HTTP connections per address: at most maxConnectionsPerAddress over both workers', async (t) => {
    const sockets = [];
    const outcomes = [];
    for (let i = 0; i < HTTP_PER_ADDRESS + 4; i++) {
      const s = net.connect(port, '127.0.0.1');
      let reply = '';
      const outcome = new Promise((resolve) => {
        s.on('data', (d) => (reply += d));
        s.on('close', () => resolve(reply));
        s.on('error', () => {});
      });
      await new Promise((r) => s.once('connect', r));
      sockets.push(s);
      outcomes.push(outcome);
      await sleep(30);
    }
    await sleep(1000);
    const refused = sockets.filter((s) => s.destroyed || s.readyState !== 'open').length;
    t.equal(refused, 4, `${HTTP_PER_ADDRESS} held, 4 refused`);
    const replies = await Promise.all(outcomes.filter((_, i) => sockets[i].destroyed || sockets[i].readyState !== 'open'));
    t.ok(replies.every((r) => /^HTTP\/1\.1 429/.test(r) && r.includes('"errorCode":42901')), 'each refused with 429 (42901)');
    const holders = new Set(sockets.map((s) => (s.destroyed ? null : holderOf(workers, port, s.localPort))).filter(Boolean));
    t.comment(`held connections on ${holders.size} worker(s)`);
    for (const s of sockets) s.destroy();
    await sleep(500);
    const ok = await fetch(`${srv.api}/models`, { headers: { 'x-api-key': key } });
    t.equal(ok.status, 200, 'once they are closed, a new connection is served');
  });

  srv.kill('SIGTERM');
  t.equal((await srv.exited).code, 0);
});
