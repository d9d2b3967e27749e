// Three nodes on loopback ports started with config/cluster.json, sharing one fresh
// PostgreSQL database and one Redis prefix: what a client and an operator notice
// when requests for one account land on different nodes.
import t from 'tap';
import { loadConfig } from '@sawt/core';
import { connect, ready } from '../helpers/ws.js';
import { SENTENCE, defaultConfigPath, pcmStats } from '../helpers/server.js';
import { cloneFields, postForm, previewFields, referenceWav } from '../clone/helpers.js';
import { HELD_TEXT, clusterConfigPath, eventually, freshCluster, openStream, servicesMissing, startNginx, tts } from './fixtures/cluster.js';

const RATE_MAX = 8;

t.test('config/cluster.json is config/default.json with PostgreSQL, blobs in the database and the Redis plugin', async (t) => {
  const cluster = loadConfig(clusterConfigPath);
  const single = loadConfig(defaultConfigPath);
  const storage = cluster.plugins.find((p) => p.resolve === '@sawt/plugin-storage');
  t.same(storage.options, { client: 'pg', blobs: 'database' });
  t.ok(cluster.plugins.some((p) => p.resolve === '@sawt/plugin-redis'));
  const rest = (c) => c.plugins.filter((p) => !['@sawt/plugin-storage', '@sawt/plugin-redis'].includes(p.resolve));
  t.same(rest(cluster), rest(single), 'every other plugin configured alike');
});

const missing = await servicesMissing();
if (missing) {
  t.test('cluster over PostgreSQL and Redis', { skip: missing }, () => {});
} else {
  t.test('three nodes on one PostgreSQL database and one Redis', async (t) => {
    const c = await freshCluster(t, (plugins) => {
      plugins.find((p) => p.resolve === '@sawt/plugin-billing').options.rateLimit = { windowMs: 60_000, max: RATE_MAX };
    });
    const [a, b, n3] = await Promise.all([c.node(), c.node(), c.node()]);
    const nodes = [a, b, n3];

    t.test('plan concurrency holds across nodes: a free account streaming on one node gets 42901 on another', async (t) => {
      const free = await c.client({ plan: 'free', balance: '10' });
      const stream = await openStream(a, free.headers, HELD_TEXT);
      const second = await tts(b, free.headers, SENTENCE, { streaming: true });
      t.equal(second.status, 429);
      t.equal(second.json.errorCode, 42901);
      t.match(second.json.errorMessage, /allows 1 concurrent request and 1 is in progress/);
      t.ok((await stream.finish()) > 1_000_000, 'the first stream delivers all of its audio');
      // The node settles and frees the slot right after the last byte (a few ms later).
      const { ms } = await eventually(async () => (await tts(n3, free.headers, SENTENCE)).status === 200, { timeoutMs: 3000, everyMs: 100, what: 'slot freed' });
      t.pass(`once it ended the account streams on any node (${ms} ms after the last byte)`);
      const w = await c.wallet(free.account.id);
      t.equal(w.reserved, 0);
      t.equal(Math.round((10 - w.balance) * 1e6), ([...HELD_TEXT].length + [...SENTENCE].length) * 100, 'both delivered requests charged, the refused one not');
    });

    t.test('the per-key rate limit counts requests on every node together', async (t) => {
      const cl = await c.client();
      const statuses = [];
      for (let i = 0; i < RATE_MAX + 3; i++) {
        const r = await fetch(`${nodes[i % 3].api}/models`, { headers: cl.headers });
        statuses.push(r.status);
        if (r.status === 429) {
          t.equal((await r.json()).errorCode, 42902);
          t.ok(Number(r.headers.get('retry-after')) >= 1, 'Retry-After given');
        } else await r.arrayBuffer();
      }
      t.same(statuses, [...Array(RATE_MAX).fill(200), 429, 429, 429], `${RATE_MAX} requests pass, over three nodes`);
      const other = await c.client();
      t.equal((await fetch(`${a.api}/models`, { headers: other.headers })).status, 200, 'another key has its own budget');
    });

    t.test('wallet race over three nodes: exactly the affordable number succeed and the balance ends at zero', async (t) => {
      const cost = [...SENTENCE].length * 100;
      const affordable = 5;
      const cl = await c.client({ balance: String((affordable * cost) / 1e6) });
      // A second key on the account keeps each key under the rate limit.
      const key2 = await c.json('keys', 'create', '--account', cl.account.id);
      const headers2 = { ...cl.headers, 'x-api-key': key2.key };
      const results = await Promise.all(Array.from({ length: 14 }, (_, i) => tts(nodes[i % 3], i % 2 ? headers2 : cl.headers, SENTENCE)));
      const ok = results.filter((r) => r.status === 200);
      t.equal(ok.length, affordable, `${affordable} of 14 succeed`);
      t.ok(ok.every((r) => pcmStats(r.body.subarray(44)).rms > 200), 'each success is real audio');
      t.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 402 && r.json.errorCode === 40201), 'the rest are 40201');
      t.same(await c.wallet(cl.account.id), { account_id: cl.account.id, balance: 0, reserved: 0, available: 0 });
    });

    t.test('a voice cloned on one node is used on the others over HTTP and WebSocket', async (t) => {
      const cl = await c.client({ balance: '50' });
      const ref = await referenceWav(a, cl.headers);
      const preview = await postForm(a, '/voices/preview', cl.key, previewFields(), { file: ref });
      t.equal(preview.status, 200);
      const made = await postForm(a, '/voices/clone', cl.key, cloneFields(), { voice_file: preview.body, reference_audio_file: ref });
      t.equal(made.status, 200, JSON.stringify(made.json));
      const voiceId = made.json.voice_id;
      const listed = await (await fetch(`${b.api}/voices`, { headers: cl.headers })).json();
      t.ok(listed.some((v) => v.voice_id === voiceId), 'listed on another node');
      const sample = await fetch(`${b.api}/voices/${voiceId}/sample`, { headers: cl.headers });
      t.equal(sample.status, 200, 'its sample (a blob in the database) served by another node');
      t.ok((await sample.arrayBuffer()).byteLength > 1000);
      const http = await tts(b, cl.headers, SENTENCE, { voice: voiceId });
      t.equal(http.status, 200, JSON.stringify(http.json));
      t.ok(pcmStats(http.body.subarray(44)).rms > 200, 'speech in the cloned voice over HTTP on another node');
      const ws = await ready(n3, cl.key, { voice_id: voiceId });
      t.same(ws.errors(), [], 'initialized on the third node');
      ws.send({ type: 'text', text: SENTENCE, flush: true });
      await ws.until(() => ws.messages.find((m) => m.isFinal));
      t.ok(ws.pcmBytes() > 24_000, 'speech in the cloned voice over WebSocket on the third node');
      ws.ws.close();
    });

    t.test('a key revoked with the CLI is refused on every node at once, and its open WebSocket on another node closes 1008', async (t) => {
      const cl = await c.client();
      const ws = await ready(b, cl.key);
      t.same(ws.errors(), []);
      for (const n of nodes) t.equal((await fetch(`${n.api}/models`, { headers: cl.headers })).status, 200);
      let closedAt = null;
      ws.ws.once('close', () => (closedAt = Date.now()));
      const revoked = await c.cli('keys', 'revoke', '--id', cl.keyId);
      const revokedAt = Date.now();
      t.equal(revoked.code, 0, revoked.stderr);
      for (const n of nodes) {
        const r = await fetch(`${n.api}/models`, { headers: cl.headers });
        t.equal(r.status, 401, `refused on ${n.id} right after the CLI returned`);
        t.same(await r.json(), { errorCode: 40101, errorMessage: 'Invalid API key: this key has been revoked' });
      }
      await eventually(() => ws.closeCode !== null, { timeoutMs: 5000, everyMs: 50, what: 'WebSocket closed' });
      t.equal(ws.closeCode, 1008);
      t.same(ws.errors().map((m) => m.errorCode), [40101], 'told why before the close');
      t.ok(closedAt - revokedAt < 2500, `closed ${closedAt - revokedAt} ms after the CLI returned (keys checked every second)`);
      const late = connect(b, { query: `?x-api-key=${cl.key}` });
      await late.closed;
      t.equal(late.closeCode, 1008, 'a new WebSocket with it is refused');
    });

    t.test('behind nginx with config/nginx.conf.example: no sticky sessions, WebSocket upgrade, request id passed through', async (t) => {
      const proxy = await startNginx(t, nodes);
      if (!proxy) return t.skip('nginx is not installed (apt-get install nginx)');
      const cl = await c.client({ balance: '10' });
      const free = await c.client({ plan: 'free', balance: '10' });
      const ids = [];
      for (let i = 0; i < 6; i++) {
        const r = await fetch(`${proxy.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: cl.headers, body: JSON.stringify({ voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5, streaming: i % 2 === 0 }) });
        const body = Buffer.from(await r.arrayBuffer());
        t.equal(r.status, 200, r.status === 200 ? 'audio through the proxy' : body.toString());
        if (r.status === 200) t.ok(pcmStats(i % 2 === 0 ? body : body.subarray(44)).rms > 200, 'real audio');
        ids.push(r.headers.get('x-request-id'));
      }
      t.ok(ids.every((id) => /^[0-9a-f-]{36}$/.test(id)), 'each response carries its node\'s request id');
      const log = proxy.accessLog();
      t.ok(ids.every((id) => log.includes(`request_id=${id}`)), 'and the access log records it');
      const upstreams = new Set([...log.matchAll(/upstream=(\S+)/g)].map((m) => m[1]));
      t.ok(upstreams.size >= 2, `requests of one client spread over ${upstreams.size} nodes`);
      const held = await openStream(a, free.headers, HELD_TEXT);
      const refused = await tts(proxy, free.headers, SENTENCE);
      t.equal(refused.json?.errorCode, 42901, 'the plan limit holds whichever node the proxy picks');
      held.abort();
      const other = await c.client();
      const ws = await ready(proxy, other.key);
      t.same(ws.errors(), [], 'WebSocket upgraded through the proxy');
      ws.send({ type: 'text', text: SENTENCE, flush: true });
      await ws.until(() => ws.messages.find((m) => m.isFinal));
      t.ok(ws.pcmBytes() > 24_000, 'audio over the proxied WebSocket');
      ws.ws.close();
    });

    t.test('the CLI works against PostgreSQL while the nodes serve', async (t) => {
      const cl = await c.client({ balance: '1' });
      const busy = Promise.all(nodes.map((n) => tts(n, cl.headers, SENTENCE)));
      const accounts = await c.json('accounts', 'list');
      t.ok(accounts.some((x) => x.id === cl.account.id));
      t.equal((await c.json('wallet', 'topup', '--account', cl.account.id, '--amount', '2')).account_id, cl.account.id);
      t.ok((await busy).every((r) => r.status === 200));
      const ledger = await c.json('wallet', 'ledger', '--account', cl.account.id);
      const kinds = ledger.map((e) => e.kind);
      t.equal(kinds.filter((k) => k === 'settle').length, 3, 'the three requests settled, each on its node');
      t.equal(kinds.filter((k) => k === 'topup').length, 2);
      const w = await c.wallet(cl.account.id);
      t.equal(Math.round(w.balance * 1e6), 3_000_000 - 3 * [...SENTENCE].length * 100);
    });
  });
}
