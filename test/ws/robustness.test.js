// Robustness of the WebSocket transport over a real socket: a client that stops
// reading, message size limits, pending-text limit, idle timeout and ping/pong
// keepalive. Small limits come through the transport-ws plugin options; waits are
// generous and nothing asserts tight timings. How far generation runs ahead of a
// client that does not read is session.test.js's (no socket).
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { tokens } from '@sawt/core';
import { startServer, SENTENCE, LONG_TEXT, pollUntil } from '../helpers/server.js';
import { wsConfig, ready, sleep } from '../helpers/ws.js';

/** The default config with the given transport-ws options. */
function configWith(options) {
  const config = wsConfig();
  const entry = config.plugins.find((p) => p.resolve === '@sawt/plugin-transport-ws');
  entry.options = { ...(entry.options ?? {}), ...options };
  return config;
}

const waitFor = (fn, what, ms = 60000) => pollUntil(what, fn, ms, 25);

/** Connects and initializes; the close reason comes with the client. */
async function readyWithReason(srv, key) {
  const c = await ready(srv, key);
  c.reason = new Promise((resolve) => c.ws.on('close', (code, reason) => resolve(reason.toString())));
  return c;
}

const noReserve = (srv, id) => waitFor(async () => { const b = await srv.balance(id); return b.reserved === 0 && b; }, 'reservation released', 30000);

t.test('a client that stops reading: close 1008 "client not reading", the end of the flush never sent, only the delivered words charged', async (t) => {
  const srv = await startServer(t, { config: configWith({ highWaterBytes: 64 * 1024, maxBufferedBytes: 16 << 20, stallTimeoutMs: 3000 }) });
  const { key, account } = await srv.client({ plan: 'enterprise', balance: '10' });
  const c = await readyWithReason(srv, key.key);

  // A first flush is delivered in full and charged.
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(() => c.audio().find((m) => m.isFinal));
  const afterFirst = await noReserve(srv, account.id);
  t.ok(afterFirst.balance < 10_000_000, 'the delivered flush was charged');

  // Stop reading, then ask for a lot of audio (several minutes of speech): past stallTimeoutMs
  // without the client reading, the server closes the session with 1008.
  c.ws._socket.pause();
  const received = c.audio().length;
  c.send({ type: 'text', text: LONG_TEXT.repeat(30), flush: true });
  await waitFor(async () => (await srv.balance(account.id)).reserved > 0, 'the piece to be admitted');
  await noReserve(srv, account.id);
  c.ws._socket.resume();
  t.equal(await c.closed, 1008, 'close code 1008');
  t.equal(await c.reason, 'client not reading');
  t.ok(c.audio().length > received, 'the client got some of the audio once it read again');
  t.notOk(c.audio().slice(received).some((m) => m.isFinal), 'but not the end of the flush');

  // The interrupted piece is charged for the audio that reached the socket (issue 28 item 4), not for the whole text.
  const after = await noReserve(srv, account.id);
  const charged = afterFirst.balance - after.balance;
  t.ok(charged > 0 && charged < [...LONG_TEXT.repeat(30).trim()].length * 100, `only the delivered words were charged (${charged / 100} characters)`);
  const ledger = await srv.app.get(tokens.wallet).ledger(account.id);
  t.ok(ledger.some((e) => e.kind === 'settle' && /^client not reading after/.test(e.description ?? '')), 'the ledger says the client stopped reading');
});

t.test('message size: above maxMessageBytes an error 40001 and the connection stays open; above maxPayload close 1009; too much pending text 40001', async (t) => {
  const srv = await startServer(t, { config: configWith({ maxMessageBytes: 32 * 1024, maxPayload: 256 * 1024, maxPendingChars: 8000 }) });
  const { key, account } = await srv.client({ plan: 'enterprise', balance: '10' });
  const c = await ready(srv, key.key);

  c.send({ type: 'text', text: 'ا'.repeat(20000) });
  const e1 = await c.until(() => c.errors()[0]);
  t.match(e1, { type: 'error', errorCode: 40001, errorMessage: /too large.*32768/i });
  t.equal(e1.message, e1.errorMessage);

  c.send({ type: 'text', text: 'كلمة '.repeat(1700) });
  const e2 = await c.until(() => c.errors()[1]);
  t.match(e2, { type: 'error', errorCode: 40001, errorMessage: /too much text.*8000/i });

  t.equal(c.ws.readyState, c.ws.OPEN, 'still open');
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(() => c.audio().find((m) => m.isFinal));
  t.equal(c.errors().length, 2, 'the rejected text was dropped: the flush speaks only the sentence');

  c.send({ type: 'text', text: 'ا'.repeat(150 * 1024) });
  t.equal(await c.closed, 1009, 'close 1009 (message too big)');
  t.equal((await noReserve(srv, account.id)).reserved, 0);
});

t.test('idle timeout: no message for idleTimeoutMs closes 1000 "idle timeout"; a session waiting on generation is not idle', async (t) => {
  const srv = await startServer(t, { config: configWith({ idleTimeoutMs: 800, highWaterBytes: 64 * 1024 }) });
  const { key } = await srv.client({ plan: 'enterprise', balance: '10' });
  const c = await readyWithReason(srv, key.key);
  t.equal(await c.closed, 1000);
  t.equal(await c.reason, 'idle timeout');

  // Generation paused by a client that does not read, for longer than the idle
  // timeout: the session stays open and delivers everything once it reads again.
  const d = await readyWithReason(srv, key.key);
  d.ws._socket.pause();
  d.send({ type: 'text', text: LONG_TEXT.repeat(30), flush: true });
  await sleep(2000);
  d.ws._socket.resume();
  await d.until(() => d.audio().find((m) => m.isFinal) || d.closeCode !== null);
  t.ok(d.audio().at(-1)?.isFinal, 'the flush ended with isFinal');
  t.equal(d.errors().length, 0);
  t.equal(await d.closed, 1000, 'then closed as idle');
});

t.test('ping/pong: a client that answers stays connected; one that never answers is terminated', async (t) => {
  const srv = await startServer(t, { config: configWith({ pingIntervalMs: 500 }) });
  const { key } = await srv.client({ plan: 'enterprise', balance: '10' });
  const c = await ready(srv, key.key);
  let pings = 0;
  c.ws.on('ping', () => pings++);

  // A raw TCP client: WebSocket handshake by hand, then never answers a ping.
  const raw = net.connect(Number(new URL(srv.base).port), '127.0.0.1');
  let rawData = '';
  raw.on('data', (d) => (rawData += d.toString('latin1')));
  raw.on('error', () => {});
  const rawClosed = new Promise((resolve) => raw.on('close', resolve));
  raw.write([
    `GET /api/v1/websocket/text-to-speech?x-api-key=${encodeURIComponent(key.key)} HTTP/1.1`,
    `Host: 127.0.0.1`, 'Upgrade: websocket', 'Connection: Upgrade',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`, 'Sec-WebSocket-Version: 13', '', '',
  ].join('\r\n'));
  await waitFor(() => rawData.includes('\r\n\r\n'), 'the handshake answer', 10000);
  t.match(rawData, /^HTTP\/1\.1 101/, 'upgraded');
  await rawClosed;
  t.pass('the silent client was terminated');

  await waitFor(() => pings >= 4, 'four pings', 30000);
  t.equal(c.ws.readyState, c.ws.OPEN, `the answering client is still open after ${pings} pings`);
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(() => c.audio().find((m) => m.isFinal));
  t.equal(c.errors().length, 0);
  c.ws.close();
});
