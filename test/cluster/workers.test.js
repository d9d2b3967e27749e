// `sawt serve --workers 2` on the embedded default (SQLite, no Redis): two processes
// behind one port share one concurrency limiter and rate counter (the primary's,
// over IPC) and one wallet (the SQLite file).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { SENTENCE, defaultConfigPath } from '../helpers/server.js';
import { freePort, sawtJson, spawnServer } from '../helpers/spawned-server.js';
import { HELD_TEXT, openStream, tts } from './fixtures/cluster.js';

const RATE_MAX = 6;

t.test('sawt serve --workers 2 on SQLite without Redis', async (t) => {
  const dir = t.testdir();
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  config.plugins.find((p) => p.resolve === '@sawt/plugin-billing').options.rateLimit = { windowMs: 60_000, max: RATE_MAX };
  const configPath = path.join(dir, 'config.json');
  writeFileSync(configPath, JSON.stringify(config));
  const env = { SAWT_DATA_DIR: path.join(dir, 'data'), SAWT_CONFIG: configPath };
  await sawtJson(env, 'migrate');
  const srv = await spawnServer(t, { ...env, SAWT_WORKERS: '2', SAWT_PORT: String(await freePort()), SAWT_HOST: '127.0.0.1' }, { timeoutMs: 180_000 });
  // Both workers listening before the checks (healthz answered by the first).
  for (let i = 0; i < 600 && (srv.output().match(/Sawt HTTP API listening/g) ?? []).length < 2; i++) await new Promise((r) => setTimeout(r, 200));
  t.equal((srv.output().match(/Sawt HTTP API listening/g) ?? []).length, 2, 'two workers listen on the one port');
  const client = async (plan, balance) => {
    const account = await sawtJson(env, 'accounts', 'create', '--name', plan, '--plan', plan, '--balance', balance);
    const key = await sawtJson(env, 'keys', 'create', '--account', account.id);
    return { account, headers: { 'x-api-key': key.key, 'content-type': 'application/json' } };
  };

  t.test('one concurrency limit for the free plan over both workers', async (t) => {
    const free = await client('free', '10');
    const held = await openStream(srv, free.headers, HELD_TEXT);
    // Connections are spread over the workers: several tries reach both.
    const others = await Promise.all(Array.from({ length: RATE_MAX - 1 }, () => tts(srv, free.headers, SENTENCE)));
    t.same(others.map((r) => r.json?.errorCode), Array(RATE_MAX - 1).fill(42901), 'every other request refused, whichever worker took it');
    held.abort();
    // A second key of the account: the first has used its rate budget.
    const key2 = await sawtJson(env, 'keys', 'create', '--account', free.account.id);
    const headers2 = { ...free.headers, 'x-api-key': key2.key };
    let ok = null;
    for (let i = 0; i < RATE_MAX && ok?.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 500));
      ok = await tts(srv, headers2, SENTENCE);
    }
    t.equal(ok.status, 200, 'the slot comes back when the stream ends');
  });

  t.test('one rate counter per key over both workers', async (t) => {
    const c = await client('enterprise', '1');
    const statuses = [];
    for (let i = 0; i < RATE_MAX + 2; i++) {
      const r = await fetch(`${srv.api}/models`, { headers: c.headers, signal: AbortSignal.timeout(30_000) });
      await r.arrayBuffer();
      statuses.push(r.status);
    }
    t.same(statuses, [...Array(RATE_MAX).fill(200), 429, 429]);
  });

  t.test('wallet race over both workers: exactly the affordable number succeed, balance ends at zero', async (t) => {
    const cost = [...SENTENCE].length * 100;
    const a = await client('enterprise', String((3 * cost) / 1e6));
    const b = await sawtJson(env, 'keys', 'create', '--account', a.account.id);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => tts(srv, i < 5 ? a.headers : { ...a.headers, 'x-api-key': b.key }, SENTENCE)));
    t.equal(results.filter((r) => r.status === 200).length, 3);
    t.ok(results.filter((r) => r.status !== 200).every((r) => r.json.errorCode === 40201));
    t.same(await sawtJson(env, 'wallet', 'show', '--account', a.account.id), { account_id: a.account.id, balance: 0, reserved: 0, available: 0 });
  });

  t.test('SIGTERM to the primary stops every worker gracefully', async (t) => {
    srv.kill('SIGTERM');
    const { code } = await srv.exited;
    t.equal(code, 0);
    t.equal((srv.output().match(/"msg":"stopped"/g) ?? []).length, 2, 'both workers stopped');
  });
});
