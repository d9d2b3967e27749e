// The data layer on PostgreSQL, through the same code as SQLite. Runs only when
// SAWT_TEST_PG_URL names a server whose user may create databases, e.g.
//   SAWT_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npx tap test/billing/postgres.test.js
import t from 'tap';
import { ManualClock, tokens } from '@sawt/core';
import { bootDataLayer, freshPgDatabase } from '../storage/fixtures/boot.js';
import { walletRace } from './fixtures/scenarios.js';
import { startHolder } from './fixtures/holder-process.js';

if (!process.env.SAWT_TEST_PG_URL) {
  t.plan(0, 'SAWT_TEST_PG_URL is not set: PostgreSQL tests skipped');
} else {
  t.test('PostgreSQL: migrations, keys, quota race, wallet race and admission', async (t) => {
    const pg = await freshPgDatabase(t);
    const dataDir = t.testdir();
    const storage = { client: 'pg', connection: pg.url };
    try {
      const first = await bootDataLayer(t, { dataDir, storage });
      t.equal(first.get(tokens.database).dialect, 'pg');
      await first.stop();
      const app = await bootDataLayer(t, { dataDir, storage });
      const db = app.get(tokens.database);
      t.equal((await db.knex('sawt_migrations').count({ n: '*' }))[0].n, '3', 'migrations applied once across two boots');

      const accounts = app.get(tokens.accounts);
      const keys = app.get(tokens.apiKeys);
      const authn = app.get(tokens.authenticator);
      const wallet = app.get(tokens.wallet);

      const acc = await accounts.create({ name: 'PG', plan: 'free' });
      await accounts.grantModel(acc.id, 'm');
      await accounts.grantModel(acc.id, 'm');
      t.same(await accounts.modelGrants(acc.id), ['m']);
      const k = await keys.create({ accountId: acc.id, endpoints: ['tts'], quotaChars: 100 });
      const auth = await authn.authenticate(k.key);
      t.same(auth.account, acc);
      t.throws(() => authn.authorize(auth, 'models'), { code: 40302 });

      const wallet0 = app.get(tokens.wallet);
      const holds = await Promise.allSettled(Array.from({ length: 25 }, (_, i) => wallet0.reserve(acc.id, 0, { requestId: `q-${i}`, quota: { keyId: k.id, chars: 10 } })));
      t.equal(holds.filter((r) => r.status === 'fulfilled').length, 10, 'quota race: exactly 10 of 25 pass');
      t.ok(holds.filter((r) => r.status === 'rejected').every((r) => r.reason.code === 42903));
      await Promise.all(holds.filter((r) => r.status === 'fulfilled').map((r) => r.value.release('test')));
      t.equal((await keys.get(k.id)).usedChars, 0, 'released reservations give the characters back');

      await walletRace(t, { accounts, wallet, outcome: 'settle' });
      await walletRace(t, { accounts, wallet, outcome: 'release' });

      await wallet.topUp(acc.id, 5000);
      const admission = app.get(tokens.admission);
      const a = await admission.admit({ auth, requestId: 'pg-1', chars: 40, costMicro: 4000, description: 'tts' });
      await t.rejects(admission.admit({ auth, requestId: 'pg-2', chars: 40, costMicro: 4000, description: 'tts' }), { code: 42901 });
      await a.settle();
      await t.rejects(admission.admit({ auth, requestId: 'pg-3', chars: 40, costMicro: 4000, description: 'tts' }), { code: 40201, message: /required 0.004, available 0.001$/ });
      t.equal((await keys.get(k.id)).usedChars, 40);

      await keys.revoke(k.id);
      await t.rejects(authn.authenticate(k.key), { code: 40101, message: /revoked/ });
      await app.stop();
    } finally {
      await pg.drop();
    }
  });

  t.test('PostgreSQL: reservation leases: a killed holder is released at the next start, a paused one after its lease, and its late settle charges nothing', async (t) => {
    const pg = await freshPgDatabase(t);
    const dataDir = t.testdir();
    const storage = { client: 'pg', connection: pg.url };
    const leases = { ttlMs: 1500, heartbeatMs: 300, sweepMs: 200 };
    try {
      const setup = await bootDataLayer(t, { dataDir, storage });
      const { account } = await setup.get(tokens.wallet).openAccount({ name: 'PG leases', plan: 'enterprise', balanceMicro: 10_000 });
      const key = await setup.get(tokens.apiKeys).create({ accountId: account.id, quotaChars: 1000 });
      await setup.stop();

      const killed = await startHolder(t, { dataDir, storage });
      await killed.send({ op: 'reserve', account: account.id, amount: 3000, keyId: key.id, chars: 40 });
      killed.kill('SIGKILL');
      await killed.exited;
      // The paused holder and this process on one ManualClock's time: the lease runs out when the test advances it.
      const clock = new ManualClock();
      const app = await bootDataLayer(t, { dataDir, storage, billing: { leases }, clock });
      const wallet = app.get(tokens.wallet);
      t.same(await wallet.balance(account.id), { accountId: account.id, balance: 10_000, reserved: 0, available: 10_000 }, 'released at start');
      t.equal((await app.get(tokens.apiKeys).get(key.id)).usedChars, 0);

      const paused = await startHolder(t, { dataDir, storage, billing: { leases }, clockStart: clock.now() });
      const r = await paused.send({ op: 'reserve', account: account.id, amount: 2000, keyId: key.id, chars: 20 });
      paused.kill('SIGSTOP');
      t.teardown(() => paused.kill('SIGCONT'));
      await clock.advance(leases.ttlMs);
      t.equal((await wallet.balance(account.id)).reserved, 2000, 'held until its lease runs out');
      await clock.advance(leases.sweepMs);
      t.equal((await wallet.balance(account.id)).reserved, 0, 'a paused owner loses its lease');
      paused.kill('SIGCONT');
      t.same(await paused.send({ op: 'settle', id: r.id }), { ok: true });
      t.same(await wallet.balance(account.id), { accountId: account.id, balance: 10_000, reserved: 0, available: 10_000 }, 'the late settle charges nothing');
      t.equal((await app.get(tokens.apiKeys).get(key.id)).usedChars, 0);
      await paused.send({ op: 'exit' }).catch(() => {});
      await app.stop();
    } finally {
      await pg.drop();
    }
  });
}
