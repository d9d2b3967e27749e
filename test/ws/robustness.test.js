// Robustness of the WebSocket transport: a client that stops reading, message
// size limits, pending-text limit, idle timeout and ping/pong keepalive. Small
// limits come through the transport-ws plugin options; waits are generous and
// nothing asserts tight timings.
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { tokens } from '@sawt/core';
import { liveSessions } from '@sawt/plugin-transport-ws';
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

/** Connects and initializes; also returns the server-side session of this client. */
async function readyWithSession(srv, key) {
  const before = new Set(liveSessions);
  const c = await ready(srv, key);
  const session = await waitFor(() => [...liveSessions].find((s) => !before.has(s)), 'the server session', 10000);
  c.reason = new Promise((resolve) => c.ws.on('close', (code, reason) => resolve(reason.toString())));
  return { c, session };
}

const noReserve = (srv, id) => waitFor(async () => { const b = await srv.balance(id); return b.reserved === 0 && b; }, 'reservation released', 30000);

t.test('a client that stops reading: generation pauses, queued bytes stay bounded, close 1008, nothing reserved or overcharged', async (t) => {
  const HIGH = 64 * 1024;
  const srv = await startServer(t, { config: configWith({ highWaterBytes: HIGH, maxBufferedBytes: 16 << 20, stallTimeoutMs: 3000 }) });
  const { key, account } = await srv.client({ plan: 'enterprise', balance: '10' });
  const { c, session } = await readyWithSession(srv, key.key);

  // A first flush is delivered in full and charged.
  c.send({ type: 'text', text: SENTENCE, flush: true });
  await c.until(() => c.audio().find((m) => m.isFinal));
  const afterFirst = await noReserve(srv, account.id);
  t.ok(afterFirst.balance < 10_000_000, 'the delivered flush was charged');

  // Stop reading, then ask for a lot of audio (several minutes of speech).
  c.ws._socket.pause();
  const received = c.audio().length;
  c.send({ type: 'text', text: LONG_TEXT.repeat(30), flush: true });
  await waitFor(() => session.stats().paused, 'generation to pause');
  // The kernel's socket buffers may still take some megabytes (loopback TCP grows them): the
  // pause counts from when they are full, i.e. when no byte went out for 300 ms.
  for (let last = -1, steady = 0; steady < 3; await sleep(100)) {
    const now = session.stats().sentBytes;
    steady = now === last ? steady + 1 : 0;
    last = now;
  }

  // While paused: nothing more is produced and what is queued stays bounded.
  const samples = [];
  for (let i = 0; i < 10 && session.stats().paused; i++) {
    samples.push(session.stats());
    await sleep(100);
  }
  t.ok(samples.length >= 2, `${samples.length} samples while paused`);
  const maxBuffered = Math.max(...samples.map((s) => s.bufferedAmount));
  const maxStream = Math.max(...samples.map((s) => s.streamBuffered));
  t.ok(maxBuffered <= HIGH + 256 * 1024, `socket buffer ${maxBuffered} B stays near the ${HIGH} B high-water mark`);
  t.ok(maxStream <= 1 << 20, `speech stream buffer ${maxStream} B bounded`);
  const grown = samples.at(-1).sentBytes - samples[0].sentBytes;
  t.ok(grown <= 256 * 1024, `${grown} B produced while paused`);
  const sent = samples.at(-1).sentBytes;
  // 30 × LONG_TEXT is several minutes of 24 kHz audio: about 30 MB of base64.
  t.ok(sent < 16 << 20, `only ${sent} B of audio produced for a client that does not read`);

  // Past stallTimeoutMs the server closes the session with 1008.
  await waitFor(() => session.stats().state !== 1, 'the server to close the session');
  c.ws._socket.resume();
  t.equal(await c.closed, 1008, 'close code 1008');
  t.equal(await c.reason, 'client not reading');
  t.ok(c.audio().length > received, 'the client got some of the audio once it read again');
  t.notOk(c.audio().slice(received).some((m) => m.isFinal), 'but not the end of the flush');

  // The interrupted piece is charged for the audio that reached the socket (issue 28 item 4), not for the whole text.
  const after = await noReserve(srv, account.id);
  t.equal(after.reserved, 0, 'nothing reserved');
  const charged = afterFirst.balance - after.balance;
  t.ok(charged > 0 && charged < [...LONG_TEXT.repeat(30).trim()].length * 100, `only the delivered words were charged (${charged / 100} characters)`);
  const ledger = await srv.app.get(tokens.wallet).ledger(account.id);
  t.ok(ledger.some((e) => e.kind === 'settle' && /^client not reading after/.test(e.description ?? '')), 'the ledger says the client stopped reading');
  await waitFor(() => !liveSessions.has(session), 'the session to end', 40000);
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
  const { c } = await readyWithSession(srv, key.key);
  t.equal(await c.closed, 1000);
  t.equal(await c.reason, 'idle timeout');

  // Generation paused by a client that does not read, for longer than the idle
  // timeout: the session stays open and delivers everything once it reads again.
  const { c: d, session } = await readyWithSession(srv, key.key);
  d.ws._socket.pause();
  d.send({ type: 'text', text: LONG_TEXT.repeat(30), flush: true });
  await waitFor(() => session.stats().paused, 'generation to pause');
  await sleep(2000);
  t.equal(session.stats().state, 1, 'still open after 2.5 × the idle timeout');
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
