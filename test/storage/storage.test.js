import t from 'tap';
import { existsSync, readdirSync } from 'node:fs';
import { Readable } from 'node:stream';
import { tokens, createSawt, createLogger } from '@sawt/core';
import { bootDataLayer, runInChildProcess } from './fixtures/boot.js';

t.test('migrations are applied once across boots on the same file, and data persists', async (t) => {
  const dataDir = t.testdir();
  const first = await bootDataLayer(t, { dataDir });
  const account = await first.get(tokens.accounts).create({ name: 'Persisted', plan: 'basic' });
  await first.stop();

  const second = await bootDataLayer(t, { dataDir });
  const rows = await second.get(tokens.database).knex('sawt_migrations').select('name').orderBy('id');
  t.same(rows.map((r) => r.name), ['auth/001-accounts-keys-grants', 'billing/001-wallets-reservations-ledger', 'billing/002-reservation-leases'], 'each migration recorded exactly once, in registration order');
  t.same(await second.get(tokens.accounts).get(account.id), account, 'the account written by the first boot is there');
});

t.test('SQLite runs in WAL mode with a busy timeout and foreign keys on', async (t) => {
  const dataDir = t.testdir();
  const app = await bootDataLayer(t, { dataDir });
  const db = app.get(tokens.database);
  t.equal(db.dialect, 'sqlite3');
  t.same(await db.knex.raw('PRAGMA journal_mode'), [{ journal_mode: 'wal' }]);
  t.same(await db.knex.raw('PRAGMA busy_timeout'), [{ timeout: 5000 }]);
  t.same(await db.knex.raw('PRAGMA foreign_keys'), [{ foreign_keys: 1 }]);
  t.ok(existsSync(`${dataDir}/sawt.db-wal`), 'the write-ahead log file exists');
  await t.rejects(db.knex('api_keys').insert({ id: 'k', account_id: 'no-such-account', key_hash: 'h', prefix: 'p', created_at: 'now' }), /FOREIGN KEY/);
});

t.test('the data dir defaults to <dataDir>/sawt.db and <dataDir>/blobs', async (t) => {
  const dataDir = `${t.testdir()}/nested/data`;
  const app = await createSawt({
    config: { plugins: [{ resolve: '@sawt/plugin-storage' }] },
    runtime: { dataDir, configDir: process.cwd() },
    logger: createLogger('silent'),
  });
  await app.start();
  t.teardown(() => app.stop());
  t.ok(existsSync(`${dataDir}/sawt.db`));
  t.ok(existsSync(`${dataDir}/blobs`));
  t.equal(app.get(tokens.blobStore).localPath('a/b.wav'), `${dataDir}/blobs/a/b.wav`);
});

t.test("the pg client without a connection string fails at boot, naming what's missing", async (t) => {
  const saved = process.env.SAWT_DATABASE_URL;
  delete process.env.SAWT_DATABASE_URL;
  t.teardown(() => { if (saved !== undefined) process.env.SAWT_DATABASE_URL = saved; });
  await t.rejects(bootDataLayer(t, { storage: { client: 'pg' } }), /needs a connection string.*SAWT_DATABASE_URL/);
  await t.rejects(bootDataLayer(t, { storage: { client: 'mysql' } }), /Invalid options for plugin 'storage'/);
});

// A second process (the admin CLI) works on the same file while the server runs.
t.test('a second process sees this one\'s writes and this one sees its writes', async (t) => {
  const dataDir = t.testdir();
  const app = await bootDataLayer(t, { dataDir });
  const accounts = app.get(tokens.accounts);
  const wallet = app.get(tokens.wallet);
  const mine = await accounts.create({ name: 'Server side', plan: 'free' });
  await wallet.topUp(mine.id, 5_000_000);

  const stdout = await runInChildProcess(dataDir, `
    const acc = await app.get(tokens.accounts).create({ name: 'CLI side', plan: 'scale' });
    await app.get(tokens.wallet).topUp(acc.id, 2_500_000);
    const seen = await app.get(tokens.wallet).balance(${JSON.stringify(mine.id)});
    console.log(JSON.stringify({ id: acc.id, seen }));
  `);
  const child = JSON.parse(stdout);
  t.equal(child.seen.balance, 5_000_000, 'the child read the balance this process wrote');
  t.equal((await accounts.get(child.id))?.name, 'CLI side', 'this process reads the account the child created');
  t.equal((await wallet.balance(child.id)).balance, 2_500_000);
});

t.test('two processes writing at once both succeed (busy timeout, short transactions)', async (t) => {
  const dataDir = t.testdir();
  const app = await bootDataLayer(t, { dataDir });
  const account = await app.get(tokens.accounts).create({ name: 'Shared', plan: 'free' });
  const wallet = app.get(tokens.wallet);
  const child = runInChildProcess(dataDir, `
    const w = app.get(tokens.wallet);
    for (let i = 0; i < 200; i++) await w.topUp(${JSON.stringify(account.id)}, 1, { description: 'child' });
  `);
  let childDone = false;
  child.then(() => { childDone = true; }, () => { childDone = true; });
  // Keep writing for as long as the child runs, so the two really overlap.
  let mine = 0;
  while (!childDone) {
    await wallet.topUp(account.id, 1, { description: 'parent' });
    mine++;
  }
  await child;
  t.ok(mine > 10, `this process wrote while the child ran (${mine} top-ups)`);
  t.equal((await wallet.balance(account.id)).balance, 200 + mine, 'no write was lost');
  t.equal((await wallet.ledger(account.id, { limit: 100_000 })).length, 200 + mine, 'one ledger row per top-up');
});

t.test('blob store: writes whole files only, validates keys', async (t) => {
  const dataDir = t.testdir();
  const app = await bootDataLayer(t, { dataDir });
  const blobs = app.get(tokens.blobStore);

  t.same(await blobs.put('voices/v1/sample.wav', Buffer.from('RIFF data')), { key: 'voices/v1/sample.wav', size: 9 });
  t.same(await blobs.put('voices/v1/stream.pcm', Readable.from([Buffer.alloc(1000, 1), Buffer.alloc(24, 2)])), { key: 'voices/v1/stream.pcm', size: 1024 });
  t.equal(await blobs.exists('voices/v1/sample.wav'), true);
  const chunks = [];
  for await (const c of await blobs.get('voices/v1/sample.wav')) chunks.push(c);
  t.equal(Buffer.concat(chunks).toString(), 'RIFF data');
  t.equal(blobs.localPath('voices/v1/sample.wav'), `${dataDir}/blobs/voices/v1/sample.wav`);

  await blobs.put('voices/v1/sample.wav', Buffer.from('replaced'));
  t.equal((await blobs.put('x', Buffer.alloc(0))).size, 0);
  await blobs.delete('voices/v1/sample.wav');
  await blobs.delete('voices/v1/sample.wav'); // deleting a missing blob is fine
  t.equal(await blobs.exists('voices/v1/sample.wav'), false);
  await t.rejects(blobs.get('voices/v1/sample.wav'), { code: 40401 });
  // A folder is removed with its last blob (a deleted job or voice leaves no empty folder), not before.
  t.ok(existsSync(`${dataDir}/blobs/voices/v1`), 'the folder stays while it holds a blob');
  await blobs.delete('voices/v1/stream.pcm');
  t.notOk(existsSync(`${dataDir}/blobs/voices`), 'its last blob deleted: voices/v1/ and voices/ are gone');
  t.ok(existsSync(`${dataDir}/blobs/x`) && existsSync(`${dataDir}/blobs/.tmp`), 'the root and its other entries stay');
  await blobs.put('voices/v1/again.wav', Buffer.from('x'));
  t.equal(await blobs.exists('voices/v1/again.wav'), true, 'and a folder is made again for a new blob');

  // A source that fails half-way leaves neither the blob nor a temporary file behind.
  const failing = new Readable({ read() { this.push(Buffer.alloc(64)); this.destroy(new Error('client went away')); } });
  await t.rejects(blobs.put('voices/v2/partial.wav', failing), /client went away/);
  t.equal(await blobs.exists('voices/v2/partial.wav'), false);
  t.same(readdirSync(`${dataDir}/blobs/.tmp`), [], 'no temporary file left');

  for (const bad of ['../escape', '/etc/passwd', 'a/../b', 'a//b', '', '.hidden', 'a/./b', 'a\\b', 'voices/\0']) {
    t.throws(() => blobs.localPath(bad), /blob key/, `rejects ${JSON.stringify(bad)}`);
    await t.rejects(blobs.put(bad, Buffer.from('x')), /blob key/);
  }
});
