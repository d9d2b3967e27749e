// The data layer on PostgreSQL, through the same code as SQLite. Runs only when
// SAWT_TEST_PG_URL names a server whose user may create databases, e.g.
//   SAWT_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test npx tap test/billing/postgres.test.js
import t from 'tap';
import { tokens } from '@sawt/core';
import { bootDataLayer, freshPgDatabase } from '../storage/fixtures/boot.js';
import { walletRace } from './fixtures/scenarios.js';

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
      t.equal((await db.knex('sawt_migrations').count({ n: '*' }))[0].n, '2', 'migrations applied once across two boots');

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

      const quota = app.get(tokens.quota);
      const holds = await Promise.allSettled(Array.from({ length: 25 }, () => quota.reserve(k.id, 10)));
      t.equal(holds.filter((r) => r.status === 'fulfilled').length, 10, 'quota race: exactly 10 of 25 pass');
      await Promise.all(holds.filter((r) => r.status === 'fulfilled').map((r) => r.value.release()));
      t.equal((await keys.get(k.id)).usedChars, 0);

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
}
