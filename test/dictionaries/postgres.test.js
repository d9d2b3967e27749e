// The dictionary store on PostgreSQL, through the same code as SQLite (test/dictionaries/http.test.js):
// migrations, versions, locators, cross-account 404 and the per-account limit under a race.
// Runs only when SAWT_TEST_PG_URL names a server whose user may create databases, e.g.
//   SAWT_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/postgres npx tap test/dictionaries/postgres.test.js
import t from 'tap';
import { createLogger, createSawt, tokens } from '@sawt/core';
import { freshPgDatabase } from '../storage/fixtures/boot.js';

if (!process.env.SAWT_TEST_PG_URL) {
  t.plan(0, 'SAWT_TEST_PG_URL is not set: PostgreSQL tests skipped');
} else {
  t.test('PostgreSQL: dictionaries, versions, locators, limits', async (t) => {
    const pg = await freshPgDatabase(t);
    const dataDir = t.testdir();
    const app = await createSawt({
      config: {
        plugins: [
          { resolve: '@sawt/plugin-storage', options: { client: 'pg', connection: pg.url } },
          { resolve: '@sawt/plugin-auth' },
          { resolve: '@sawt/plugin-billing' },
          { resolve: '@sawt/plugin-dictionaries', options: { maxDictionariesPerAccount: 3, maxRulesPerDictionary: 2 } },
        ],
      },
      runtime: { dataDir, configDir: process.cwd() },
      logger: createLogger('silent'),
    });
    try {
      await app.start();
      t.equal(app.get(tokens.database).dialect, 'pg');
      const accounts = app.get(tokens.accounts);
      const store = app.get(tokens.pronunciationDictionaries);
      const owner = await accounts.create({ name: 'owner', plan: 'free' });
      const other = await accounts.create({ name: 'other', plan: 'free' });
      const rule = (s, alias) => ({ string_to_replace: s, type: 'alias', alias });

      const d = await store.create(owner.id, 'أسماء', [rule('WHO', 'منظمة')]);
      const v2 = await store.patch(owner.id, d.id, { add: [rule('UN', 'الأمم')], remove: [] });
      t.equal(v2.version_number, 2);
      t.same((await store.get(owner.id, d.id, d.version_id)).rules, [rule('WHO', 'منظمة')], 'version 1 kept');
      t.same((await store.list(owner.id)).map((x) => [x.id, x.rule_count]), [[d.id, 2]]);
      await t.rejects(store.patch(owner.id, d.id, { add: [rule('x', 'y')], remove: [] }), { code: 40001, message: /at most 2 rules/u });
      await t.rejects(store.get(other.id, d.id), { code: 40401 });
      await t.rejects(store.resolveLocators(other.id, [{ pronunciation_dictionary_id: d.id }]), { code: 40401 });
      t.same((await store.resolveLocators(owner.id, [{ pronunciation_dictionary_id: d.id, version_id: d.version_id }])).map((r) => r.alias), ['منظمة']);

      // Parallel PATCHes apply one after the other: each version builds on the one before.
      const patches = await Promise.all(['a', 'b'].map((s) => store.patch(owner.id, d.id, { add: [], remove: [], name: s })));
      t.same(patches.map((p) => p.version_number).sort(), [3, 4]);

      // Parallel creates cannot pass the per-account limit together (the account row is locked).
      const creates = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => store.create(owner.id, `d${i}`, [])));
      t.equal(creates.filter((c) => c.status === 'fulfilled').length, 2, 'exactly 3 in all');
      t.ok(creates.filter((c) => c.status === 'rejected').every((c) => c.reason.code === 40001));

      t.equal(await store.delete(other.id, d.id), false, 'another account cannot delete it');
      t.equal(await store.delete(owner.id, d.id), true);
      await t.rejects(store.resolveLocators(owner.id, [{ pronunciation_dictionary_id: d.id, version_id: d.version_id }]), { code: 40401 });
      t.equal(Number((await app.get(tokens.database).knex('pronunciation_dictionary_versions').where({ dictionary_id: d.id }).count({ n: '*' }))[0].n), 0, 'its versions are gone');
    } finally {
      await app.stop();
      await pg.drop();
    }
  });
}
