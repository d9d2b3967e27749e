// Issue 34 item 1: on the free plan (1 concurrent request) a client that sends each request only
// after the previous response's last byte arrived is never refused for concurrency: the slot is
// freed (and the primary's or Redis's acknowledgement awaited) before the last bytes go out. 200
// sequential pairs (WAV then stream, stream then WAV, a WebSocket piece then HTTP) with one
// process, with `sawt serve --workers 2`, and on two nodes of a cluster (Redis + PostgreSQL).
// The limit itself still holding for overlapping requests is tested in limits.test.js, the
// workers and the cluster tests.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import WebSocket from 'ws';
import { SENTENCE, defaultConfigPath } from '../helpers/server.js';
import { startWsServer } from '../helpers/ws.js';
import { freePort, sawtJson, spawnServer } from '../helpers/spawned-server.js';
import { freshCluster, servicesMissing } from '../cluster/fixtures/cluster.js';

const PAIRS = Number(process.env.SAWT_SEQUENTIAL_PAIRS ?? 200);
const KINDS = ['wav then stream', 'stream then wav', 'websocket piece then http'];

/** One HTTP request read to its last byte: its status and errorCode (null for audio). */
async function http(api, headers, streaming) {
  const r = await fetch(`${api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5, streaming }) });
  const body = Buffer.from(await r.arrayBuffer());
  const json = (r.headers.get('content-type') ?? '').startsWith('application/json') ? JSON.parse(body.toString('utf8')) : null;
  return { status: r.status, errorCode: json?.errorCode ?? null, bytes: body.length };
}

/** A WebSocket connection that speaks one flushed text at a time; resolves each piece at its isFinal message (or error). */
async function wsSpeaker(api, key) {
  const ws = new WebSocket(`${api.replace('http', 'ws')}/websocket/text-to-speech?x-api-key=${encodeURIComponent(key)}`);
  ws.on('error', () => {});
  let waiting = null;
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    if (m.type === 'connectionInitialized' || m.type === 'error' || m.isFinal) waiting?.(m);
  });
  const next = () => new Promise((resolve) => (waiting = resolve));
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  const init = next();
  ws.send(JSON.stringify({ type: 'initConnection', voice_id: 'fusha-omar', model_id: 'sawt-mini' }));
  const first = await init;
  if (first.type !== 'connectionInitialized') throw new Error(`initConnection failed: ${JSON.stringify(first)}`);
  return {
    async piece() {
      const done = next();
      ws.send(JSON.stringify({ type: 'text', text: SENTENCE, flush: true }));
      const m = await done;
      return m.type === 'error' ? { status: m.errorCode === 42901 ? 429 : 400, errorCode: m.errorCode } : { status: 200, errorCode: null };
    },
    close: () => ws.close(),
  };
}

/**
 * Runs PAIRS pairs, each request sent once the previous one's response arrived in full; `apiFor(i)`
 * picks the node of the i-th request (a cluster alternates). Returns the refusals and the failures.
 */
async function sequentialPairs(apiFor, headers, key) {
  const speakers = new Map();
  const speaker = async (api) => speakers.get(api) ?? speakers.set(api, await wsSpeaker(api, key)).get(api);
  const outcomes = { refused: [], failed: [], ok: 0 };
  let n = 0;
  const note = (what, r) => {
    if (r.status === 200) outcomes.ok++;
    else if (r.errorCode === 42901) outcomes.refused.push(what);
    else outcomes.failed.push(`${what}: ${r.status} ${r.errorCode}`);
  };
  for (let pair = 0; pair < PAIRS; pair++) {
    const kind = KINDS[pair % KINDS.length];
    const steps = kind === 'wav then stream' ? ['wav', 'stream'] : kind === 'stream then wav' ? ['stream', 'wav'] : ['ws', pair % 2 ? 'wav' : 'stream'];
    for (const step of steps) {
      const api = apiFor(n++);
      const r = step === 'ws' ? await (await speaker(api)).piece() : await http(api, headers, step === 'stream');
      note(`pair ${pair} (${kind}) ${step}`, r);
    }
  }
  for (const s of speakers.values()) s.close();
  return outcomes;
}

const assertNoRefusals = (t, outcomes) => {
  t.same(outcomes.failed, [], 'no request failed');
  t.same(outcomes.refused, [], `0 refusals for concurrency in ${PAIRS} sequential pairs`);
  t.equal(outcomes.ok, PAIRS * 2, 'every request answered with audio');
};

t.test('one process: sequential pairs on the free plan are never refused', async (t) => {
  const srv = await startWsServer(t);
  const c = await srv.client({ plan: 'free', balance: '10' });
  assertNoRefusals(t, await sequentialPairs(() => srv.api, c.headers, c.key.key));
});

t.test('sawt serve --workers 2: sequential pairs on the free plan are never refused', async (t) => {
  const dir = t.testdir();
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  const configPath = path.join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const env = { SAWT_DATA_DIR: path.join(dir, 'data'), SAWT_CONFIG: configPath };
  await sawtJson(env, 'migrate');
  const srv = await spawnServer(t, { ...env, SAWT_WORKERS: '2', SAWT_PORT: String(await freePort()), SAWT_HOST: '127.0.0.1' }, { timeoutMs: 180_000 });
  for (let i = 0; i < 600 && (srv.output().match(/Sawt HTTP API listening/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 200));
  t.equal((srv.output().match(/Sawt HTTP API listening/g) ?? []).length, 2, 'two workers listen on the one port');
  const account = await sawtJson(env, 'accounts', 'create', '--name', 'sequential', '--plan', 'free', '--balance', '10');
  const key = await sawtJson(env, 'keys', 'create', '--account', account.id);
  const headers = { 'x-api-key': key.key, 'content-type': 'application/json' };
  assertNoRefusals(t, await sequentialPairs(() => srv.api, headers, key.key));
});

const missing = await servicesMissing();
t.test('two nodes of a cluster: sequential pairs alternating between the nodes are never refused', { skip: missing ?? false }, async (t) => {
  const c = await freshCluster(t);
  const [a, b] = await Promise.all([c.node(), c.node()]);
  const free = await c.client({ plan: 'free', balance: '10' });
  // Each request goes to the other node than the one before: a key used on node A, then on node B.
  assertNoRefusals(t, await sequentialPairs((i) => (i % 2 ? b.api : a.api), free.headers, free.key));
  const w = await c.wallet(free.account.id);
  t.equal(w.reserved, 0, 'every reservation settled');
});

t.test('one process: a request sent after a denoise response\'s last byte is never refused', async (t) => {
  const srv = await startWsServer(t);
  const c = await srv.client({ plan: 'free', balance: '10' });
  const json = { ...c.headers, 'content-type': 'application/json' };
  const speech = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: json, body: JSON.stringify({ voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5, streaming: false }) });
  t.equal(speech.status, 200);
  const wav = Buffer.from(await speech.arrayBuffer());
  const denoise = async () => {
    const form = new FormData();
    form.append('audio', new Blob([wav], { type: 'audio/wav' }), 'speech.wav');
    const r = await fetch(`${srv.api}/denoise`, { method: 'POST', headers: { 'x-api-key': c.key.key }, body: form });
    const body = Buffer.from(await r.arrayBuffer());
    return { status: r.status, errorCode: r.status === 200 ? null : JSON.parse(body.toString('utf8')).errorCode };
  };
  const outcomes = [];
  // Refused 11 of 15 times before: the slot was freed after the denoise's money was settled.
  for (let pair = 0; pair < 6; pair++) {
    outcomes.push(await denoise());
    outcomes.push(pair % 2 ? await denoise() : await http(srv.api, json, false));
  }
  t.same(outcomes.filter((o) => o.status !== 200), [], '12 sequential requests, each after a denoise or a synthesis, all answered');
});
