// The WebSocket protocol without a socket: a WsSession is fed client messages and
// answers through a fake connection; its syntheses come from a fake paid path that
// records what was asked and how each admission ended. Backpressure is SendWindow's:
// generation waits on send callbacks and a client that stops reading is cut.
import { Readable } from 'node:stream';
import t from 'tap';
import { errors } from '@sawt/core';
import { DEFAULT_LIMITS, NotReading, SendWindow, WsSession } from '@sawt/plugin-transport-ws';
import { silentLogger } from '../helpers/server.js';

const SENTENCE = 'مرحبا بكم في خدمة صوت للنطق العربي.';
const CHUNK_SAMPLES = 2400;

/** Lets every pending promise and I/O callback run (no clock involved). */
const settle = async (turns = 20) => {
  for (let i = 0; i < turns; i++) await new Promise((r) => setImmediate(r));
};

/** A session on a fake connection and a fake paid path; `chunks` chunks of audio per piece. */
function world({ chunks = 3, invalidKey = null, window = new SendWindow({ highWaterBytes: 1 << 20, maxBufferedBytes: 8 << 20, stallTimeoutMs: 60_000 }), autoAck = true } = {}) {
  const unacked = [];
  const sent = [];
  const closes = [];
  const asked = [];
  const money = [];
  const authentications = [];
  const streams = [];
  const auth = { account: { id: 'acc-1', plan: 'enterprise' }, key: { id: 'key-1', endpoints: null } };
  const deps = {
    authenticator: {
      async authenticate(secret) {
        authentications.push(secret);
        if (secret !== 'sawt_good') throw errors.authentication('Invalid API key');
        return auth;
      },
      authorize() {},
      invalidKeys: async (ids) => new Map(invalidKey ? ids.map((id) => [id, invalidKey]) : []),
    },
    rateLimiter: { hit: async () => {} },
    models: { get: (id) => (id === 'sawt-mini' ? { model_id: 'sawt-mini', available: true, access: 'public' } : undefined), defaultModelId: () => 'sawt-mini' },
    voices: { get: async (id) => (id === 'fusha-omar' ? { voice_id: id, models: null } : null), list: async () => [] },
    accounts: { hasModelGrant: async () => true },
    logger: silentLogger,
    track: (p) => p,
    async startSynthesis(_services, req) {
      asked.push(req);
      const id = req.requestId;
      // Chunks come one per turn of the event loop, as an engine's do.
      const made = { chunks: 0 };
      const stream = Readable.from((async function* () {
        for (let i = 0; i < chunks; i++) {
          await new Promise((r) => setImmediate(r));
          made.chunks++;
          yield { pcm: Buffer.alloc(CHUNK_SAMPLES * 2, i + 1), sampleRate: 24000, isLast: i === chunks - 1, info: { segment: 0, segmentEnd: i === chunks - 1, samples: CHUNK_SAMPLES, words: [] } };
        }
      })(), { highWaterMark: 1 });
      streams.push(made);
      const admission = {
        requestId: id, costMicro: 100,
        settle: async () => void money.push({ id, how: 'settle' }),
        release: async (reason) => void money.push({ id, how: 'release', reason }),
        settleCut: async (samples, cutBy) => void money.push({ id, how: 'cut', samples, cutBy }),
        freeSlot: async () => {},
      };
      return { stream, admission, model: deps.models.get('sawt-mini'), chars: [...req.text].length };
    },
  };
  // As the ws adapter: a message counts in the SendWindow until its send callback (ack).
  const conn = {
    send(msg) {
      sent.push(JSON.parse(msg.toString()));
      const taken = window.hold(Buffer.byteLength(msg));
      return new Promise((resolve) => {
        const ack = () => (taken(), resolve(true));
        if (autoAck) ack();
        else unacked.push(ack);
      });
    },
    drained: () => window.belowHighWater(),
    close: (code, reason) => closes.push({ code, reason }),
  };
  const session = (key) => new WsSession(conn, deps, key, DEFAULT_LIMITS);
  const json = (o) => JSON.stringify(o);
  const ack = () => unacked.shift()?.();
  return { ack, sent, closes, asked, money, authentications, streams, session, json, audio: () => sent.filter((m) => typeof m.audio === 'string'), errorsSent: () => sent.filter((m) => m.type === 'error') };
}

t.test('initConnection, then a flush: connectionInitialized, audio in order ending with isFinal, one admission asked and settled', async (t) => {
  const w = world({ chunks: 3 });
  const s = w.session('sawt_good');
  s.receive(w.json({ type: 'initConnection', voice_id: 'fusha-omar' }));
  s.receive(w.json({ type: 'text', text: SENTENCE, flush: true }));
  await settle();
  t.same(w.sent[0], { type: 'connectionInitialized' });
  const audio = w.audio();
  t.ok(audio.length >= 2, `${audio.length} audio messages`);
  t.same(audio.map((m) => m.isFinal === true), [...audio.slice(1).map(() => false), true], 'the last one alone carries isFinal');
  t.equal(audio.reduce((n, m) => n + Buffer.from(m.audio, 'base64').length, 0), 3 * CHUNK_SAMPLES * 2, 'all the audio, once');
  t.equal(w.asked.length, 1);
  t.match(w.asked[0], { text: SENTENCE, modelId: 'sawt-mini', voiceId: 'fusha-omar', transport: 'ws', requestId: new RegExp(`^${s.id}:1$`) });
  t.same(w.money, [{ id: `${s.id}:1`, how: 'settle' }]);
  t.same(w.closes, []);
});

t.test('the key is authenticated once, whether given at the upgrade or in initConnection', async (t) => {
  for (const [upgrade, init] of [['sawt_good', {}], [undefined, { x_api_key: 'sawt_good' }]]) {
    const w = world();
    const s = w.session(upgrade);
    s.receive(w.json({ type: 'initConnection', voice_id: 'fusha-omar', ...init }));
    for (let i = 0; i < 3; i++) s.receive(w.json({ type: 'text', text: SENTENCE, flush: true }));
    await settle(40);
    t.equal(w.money.filter((m) => m.how === 'settle').length, 3, 'three flushes delivered');
    t.same(w.authentications, ['sawt_good'], `one authentication (${upgrade ? 'upgrade' : 'initConnection'})`);
  }
});

t.test('a bad key: 40101, close 1008, nothing asked', async (t) => {
  const w = world();
  const s = w.session('sawt_bad');
  s.receive(w.json({ type: 'initConnection', voice_id: 'fusha-omar' }));
  await settle();
  t.match(w.errorsSent(), [{ errorCode: 40101 }]);
  t.same(w.closes, [{ code: 1008, reason: 'authentication failed' }]);
  t.same(w.asked, []);
});

t.test('text before initConnection, a binary message, an unknown type: 40001 each, the connection stays open', async (t) => {
  const w = world();
  const s = w.session('sawt_good');
  s.receive(w.json({ type: 'text', text: SENTENCE, flush: true }));
  s.receive(null);
  s.receive(w.json({ type: 'nonsense' }));
  s.receive({ oversized: 1 << 20 });
  await settle();
  t.same(w.errorsSent().map((e) => e.errorCode), [40001, 40001, 40001, 40001]);
  t.match(w.errorsSent()[3].errorMessage, /too large: 1048576 bytes/);
  t.same(w.closes, []);
  t.same(w.asked, []);
});

t.test('a key revoked since the connection opened: its next flush gets 40101, no audio, the admission released, close 1008', async (t) => {
  const w = world({ invalidKey: errors.authentication('Invalid API key: this key has been revoked') });
  const s = w.session('sawt_good');
  s.receive(w.json({ type: 'initConnection', voice_id: 'fusha-omar' }));
  s.receive(w.json({ type: 'text', text: SENTENCE, flush: true }));
  await settle();
  t.match(w.errorsSent(), [{ errorCode: 40101, errorMessage: /revoked/ }], 'one error');
  t.same(w.audio(), [], 'no audio');
  t.same(w.money, [{ id: `${s.id}:1`, how: 'release', reason: 'websocket key no longer valid' }]);
  t.same(w.closes, [{ code: 1008, reason: 'API key no longer valid' }]);
});

/** A window that holds less than one message: generation waits for each send callback. */
const narrow = (stallTimeoutMs = 60_000) => new SendWindow({ highWaterBytes: 1000, maxBufferedBytes: 1 << 20, stallTimeoutMs });

t.test('backpressure: generation waits on the send callbacks of what was sent', async (t) => {
  const w = world({ chunks: 10, window: narrow(), autoAck: false });
  const s = w.session('sawt_good');
  s.receive(w.json({ type: 'initConnection', voice_id: 'fusha-omar' }));
  await settle();
  w.ack();
  s.receive(w.json({ type: 'text', text: SENTENCE, flush: true }));
  await settle();
  t.equal(w.audio().length, 1, 'the first message went, then generation waits');
  t.ok(w.streams[0].chunks < 10, `the rest of the speech is not generated (${w.streams[0].chunks} of 10 chunks)`);
  while (!w.audio().at(-1)?.isFinal) {
    const before = w.audio().length;
    w.ack();
    await settle();
    t.ok(w.audio().length > before, `a callback lets the next message go (${w.audio().length})`);
  }
  w.ack();
  await settle();
  t.equal(w.audio().reduce((n, m) => n + Buffer.from(m.audio, 'base64').length, 0), 10 * CHUNK_SAMPLES * 2, 'all the audio');
  t.same(w.money, [{ id: `${s.id}:1`, how: 'settle' }]);
});

t.test('a client that stops reading: close 1008 "client not reading", the piece cut for what the socket took', async (t) => {
  const w = world({ chunks: 10, window: narrow(50), autoAck: false });
  const s = w.session('sawt_good');
  s.receive(w.json({ type: 'initConnection', voice_id: 'fusha-omar' }));
  await settle();
  w.ack();
  s.receive(w.json({ type: 'text', text: SENTENCE, flush: true }));
  await settle();
  w.ack();
  // The stall timeout (50 ms) passes without a callback; a generous deadline for the cut.
  for (const end = Date.now() + 10_000; !w.money.length && Date.now() < end;) await settle();
  t.same(w.closes, [{ code: 1008, reason: 'client not reading' }]);
  t.same(w.money, [{ id: `${s.id}:1`, how: 'cut', samples: CHUNK_SAMPLES, cutBy: 'client not reading' }], 'charged for the one message the socket took');
  t.notOk(w.audio().some((m) => m.isFinal), 'no isFinal');
});

t.test('clear cuts the piece in progress; closeConnection finishes the queue, then closes 1000', async (t) => {
  const w = world({ chunks: 10, window: narrow(), autoAck: false });
  const s = w.session('sawt_good');
  s.receive(w.json({ type: 'initConnection', voice_id: 'fusha-omar' }));
  await settle();
  w.ack();
  s.receive(w.json({ type: 'text', text: SENTENCE, flush: true }));
  await settle();
  w.ack();
  await settle();
  s.receive(w.json({ type: 'clear' }));
  await settle();
  w.ack();
  await settle();
  t.same(w.money, [{ id: `${s.id}:1`, how: 'cut', samples: 2 * CHUNK_SAMPLES, cutBy: 'client clear' }], 'charged for the two messages the socket took');
  t.same(w.closes, []);

  const v = world({ chunks: 2 });
  const s2 = v.session('sawt_good');
  s2.receive(v.json({ type: 'initConnection', voice_id: 'fusha-omar' }));
  s2.receive(v.json({ type: 'text', text: SENTENCE, flush: true }));
  s2.receive(v.json({ type: 'closeConnection' }));
  await settle();
  t.ok(v.audio().at(-1)?.isFinal, 'the queued flush was spoken');
  t.same(v.closes, [{ code: 1000, reason: 'closeConnection' }]);
  s2.closed();
  await s2.done;
});

t.test('a key found invalid by the periodic check mid-generation: 40101 once, close 1008', async (t) => {
  const w = world({ chunks: 10, window: narrow(), autoAck: false });
  const s = w.session('sawt_good');
  s.receive(w.json({ type: 'initConnection', voice_id: 'fusha-omar' }));
  await settle();
  w.ack();
  s.receive(w.json({ type: 'text', text: SENTENCE, flush: true }));
  await settle();
  t.equal(s.keyId, 'key-1');
  const e = errors.authentication('Invalid API key: this key has been revoked');
  await Promise.all([s.keyInvalidated(e), s.keyInvalidated(e), (async () => { for (let i = 0; i < 5; i++) (w.ack(), await settle()); })()]);
  t.match(w.errorsSent(), [{ errorCode: 40101 }], 'one error');
  t.same(w.closes, [{ code: 1008, reason: 'API key no longer valid' }]);
});

t.test('SendWindow: counts bytes until their send callback, waits on callbacks, refuses a client that stops reading', async (t) => {
  const w = new SendWindow({ highWaterBytes: 100, maxBufferedBytes: 1000, stallTimeoutMs: 60_000 });
  const a = w.hold(80);
  await w.belowHighWater();
  t.pass('at the high-water mark or below: no wait');
  const b = w.hold(80);
  let woke = false;
  const waiting = w.belowHighWater().then(() => (woke = true));
  await settle();
  t.equal(woke, false, 'above it: waits');
  a();
  a();
  await waiting;
  t.equal(w.bytes, 80, 'a callback brought it down (counted once)');
  b();
  const c = w.hold(2000);
  t.ok(await w.belowHighWater().catch((e) => e instanceof NotReading), 'past maxBufferedBytes: not reading at once');
  c();
  const stalled = new SendWindow({ highWaterBytes: 10, maxBufferedBytes: 1000, stallTimeoutMs: 50 });
  stalled.hold(20);
  t.ok(await stalled.belowHighWater().catch((e) => e instanceof NotReading), 'no callback within stallTimeoutMs: not reading');
});
