import t from 'tap';
import { createHash } from 'node:crypto';
import { tokens } from '@sawt/core';
import { bootDataLayer } from '../storage/fixtures/boot.js';

const sha256 = (s) => createHash('sha256').update(s).digest('hex');

async function setup(t) {
  const app = await bootDataLayer(t);
  return {
    app,
    db: app.get(tokens.database),
    accounts: app.get(tokens.accounts),
    keys: app.get(tokens.apiKeys),
    authn: app.get(tokens.authenticator),
    quota: app.get(tokens.quota),
  };
}

t.test('accounts: create, get, list, validation', async (t) => {
  const { accounts } = await setup(t);
  const a = await accounts.create({ name: '  Acme  ', plan: 'growth' });
  t.match(a, { id: /^[0-9a-f-]{36}$/, name: 'Acme', plan: 'growth', createdAt: /^\d{4}-\d\d-\d\dT/ });
  t.same(await accounts.get(a.id), a);
  t.equal(await accounts.get('00000000-0000-0000-0000-000000000000'), null);
  const b = await accounts.create({ name: 'Beta', plan: 'free' });
  t.same((await accounts.list()).map((x) => x.id).sort(), [a.id, b.id].sort());
  await t.rejects(accounts.create({ name: 'X', plan: 'platinum' }), { code: 40001, message: /plan must be one of free, basic, starter, growth, scale, enterprise/ });
  await t.rejects(accounts.create({ name: '   ', plan: 'free' }), { code: 40001, message: /name is required/ });
});

t.test('model grants are idempotent and per account', async (t) => {
  const { accounts } = await setup(t);
  const a = await accounts.create({ name: 'A', plan: 'free' });
  const b = await accounts.create({ name: 'B', plan: 'free' });
  await accounts.grantModel(a.id, 'sawt-neural-najdi');
  await accounts.grantModel(a.id, 'sawt-neural-najdi');
  await accounts.grantModel(a.id, 'sawt-neural-fusha');
  t.same(await accounts.modelGrants(a.id), ['sawt-neural-fusha', 'sawt-neural-najdi']);
  t.equal(await accounts.hasModelGrant(a.id, 'sawt-neural-najdi'), true);
  t.equal(await accounts.hasModelGrant(b.id, 'sawt-neural-najdi'), false);
  t.same(await accounts.modelGrants(b.id), []);
  await t.rejects(accounts.grantModel('nope', 'sawt-neural-najdi'), { code: 40401, message: "Account 'nope' not found" });
});

t.test('keys: the secret is shown once and only its hash is stored', async (t) => {
  const { accounts, keys, db } = await setup(t);
  const acc = await accounts.create({ name: 'A', plan: 'free' });
  const created = await keys.create({ accountId: acc.id });
  t.match(created.key, /^sawt_[A-Za-z0-9]{40}$/);
  t.equal(created.prefix, created.key.slice(0, 12));
  t.match(created, { accountId: acc.id, endpoints: null, expiresAt: null, quotaChars: null, usedChars: 0, revokedAt: null });

  const row = await db.knex('api_keys').where({ id: created.id }).first();
  t.equal(row.key_hash, sha256(created.key));
  t.notOk(JSON.stringify(row).includes(created.key), 'the secret itself is not in the database');

  const fetched = await keys.get(created.id);
  t.notOk('key' in fetched, 'get() never returns the secret');
  const { key: _secret, ...record } = created;
  t.same(fetched, record);
  const other = await keys.create({ accountId: acc.id });
  t.not(other.key, created.key);
  t.same((await keys.list(acc.id)).map((k) => k.id).sort(), [created.id, other.id].sort());
});

t.test('keys: create input is validated with messages a CLI user understands', async (t) => {
  const { accounts, keys } = await setup(t);
  const acc = await accounts.create({ name: 'A', plan: 'free' });
  const bad = async (input, message) => t.rejects(keys.create({ accountId: acc.id, ...input }), { code: 40001, message }, message.toString());
  await bad({ endpoints: ['models', 'speech'] }, /Unknown endpoint scope "speech"; allowed: models, voices, tts, tts-ws, preview, openai, clone, denoise/);
  await bad({ endpoints: [] }, /at least one/);
  await bad({ expiresAt: 'tomorrow' }, /expiresAt must be an ISO 8601 date/);
  await bad({ expiresAt: '2031-02-30' }, /expiresAt must be an ISO 8601 date/);
  await bad({ expiresAt: '2031-13-01T00:00:00Z' }, /expiresAt must be an ISO 8601 date/);
  await bad({ quotaChars: -1 }, /quotaChars must be a non-negative integer/);
  await bad({ quotaChars: 1.5 }, /quotaChars must be a non-negative integer/);
  await t.rejects(keys.create({ accountId: 'missing-account' }), { code: 40401, message: "Account 'missing-account' not found" });

  const ok = await keys.create({ accountId: acc.id, endpoints: ['voices', 'models', 'models'], expiresAt: '2031-06-01T12:00:00+02:00', quotaChars: 0 });
  t.same(ok.endpoints, ['models', 'voices'], 'deduplicated, in canonical order');
  t.equal(ok.expiresAt, '2031-06-01T10:00:00.000Z', 'normalised to UTC');
  t.equal(ok.quotaChars, 0);
  const past = await keys.create({ accountId: acc.id, expiresAt: '2001-01-01T00:00:00Z' });
  t.equal(past.expiresAt, '2001-01-01T00:00:00.000Z', 'a past date is accepted: the key starts expired');
});

t.test('authenticate: valid, missing, malformed and unknown keys', async (t) => {
  const { accounts, keys, authn } = await setup(t);
  const acc = await accounts.create({ name: 'A', plan: 'starter' });
  const k = await keys.create({ accountId: acc.id });
  const ctx = await authn.authenticate(k.key);
  t.same(ctx.account, acc);
  t.equal(ctx.key.id, k.id);

  for (const missing of [undefined, '', '   ']) {
    await t.rejects(authn.authenticate(missing), { code: 40101, status: 401, message: /Missing API key.*x-api-key/ });
  }
  await t.rejects(authn.authenticate('Bearer ' + k.key), { code: 40101, message: /Malformed API key/ });
  await t.rejects(authn.authenticate('sawt_short'), { code: 40101, message: /Malformed API key/ });
  const unknown = 'sawt_' + 'A'.repeat(40);
  await t.rejects(authn.authenticate(unknown), { code: 40101, message: 'Invalid API key' });
  // A near miss of a real key is just unknown.
  const flipped = k.key.slice(0, -1) + (k.key.endsWith('a') ? 'b' : 'a');
  await t.rejects(authn.authenticate(flipped), { code: 40101 });
});

t.test('authorize: endpoint restrictions give 40302, no restriction allows all', async (t) => {
  const { app, accounts, keys, authn } = await setup(t);
  const acc = await accounts.create({ name: 'A', plan: 'free' });
  const limited = await authn.authenticate((await keys.create({ accountId: acc.id, endpoints: ['models', 'voices'] })).key);
  authn.authorize(limited, 'models');
  authn.authorize(limited, 'voices');
  t.throws(() => authn.authorize(limited, 'tts'), { code: 40302, status: 403, message: /not allowed to call the 'tts' endpoint/ });
  t.throws(() => authn.authorize(limited, 'tts-ws'), { code: 40302 });
  const open = await authn.authenticate((await keys.create({ accountId: acc.id })).key);
  for (const scope of app.get(tokens.scopes).names) authn.authorize(open, scope);
  t.pass('an unrestricted key may call every endpoint');
});

t.test('expired, revoked and deleted keys give 40101', async (t) => {
  const { accounts, keys, authn, db } = await setup(t);
  const acc = await accounts.create({ name: 'A', plan: 'free' });

  const expiring = await keys.create({ accountId: acc.id, expiresAt: new Date(Date.now() + 3600_000).toISOString() });
  await authn.authenticate(expiring.key);
  // Let time pass: move the expiry into the past.
  await db.knex('api_keys').where({ id: expiring.id }).update({ expires_at: '2020-01-01T00:00:00.000Z' });
  await t.rejects(authn.authenticate(expiring.key), { code: 40101, message: /expired at 2020-01-01T00:00:00.000Z/ });

  const revoked = await keys.create({ accountId: acc.id });
  const r1 = await keys.revoke(revoked.id);
  t.match(r1.revokedAt, /^\d{4}-/);
  t.equal((await keys.revoke(revoked.id)).revokedAt, r1.revokedAt, 'revoking twice keeps the first time');
  await t.rejects(authn.authenticate(revoked.key), { code: 40101, message: /revoked/ });
  t.equal((await keys.get(revoked.id)).revokedAt, r1.revokedAt, 'a revoked key is still listed');

  const deleted = await keys.create({ accountId: acc.id });
  await keys.delete(deleted.id);
  await t.rejects(authn.authenticate(deleted.key), { code: 40101, message: /deleted/ });
  t.equal(await keys.get(deleted.id), null);
  t.notOk((await keys.list(acc.id)).some((k) => k.id === deleted.id), 'a deleted key is not listed');
  await t.rejects(keys.delete(deleted.id), { code: 40401, message: `API key '${deleted.id}' not found` });
  await t.rejects(keys.revoke(deleted.id), { code: 40401 });
  await t.rejects(keys.revoke('no-such-key'), { code: 40401 });
});

t.test('character quota: atomic, counted per key, given back on failure', async (t) => {
  const { accounts, keys, quota, db } = await setup(t);
  const acc = await accounts.create({ name: 'A', plan: 'free' });
  const k = await keys.create({ accountId: acc.id, quotaChars: 100 });
  // The wallet calls these inside its reservation's transaction; here each gets its own.
  const take = (id, n) => db.knex.transaction((trx) => quota.take(trx, id, n));
  const giveBack = (id, n) => db.knex.transaction((trx) => quota.giveBack(trx, id, n));

  await take(k.id, 60);
  t.equal((await keys.get(k.id)).usedChars, 60);
  await t.rejects(take(k.id, 41), { code: 42903, status: 429, message: 'Character quota of this API key exhausted: 60 of 100 characters used' });
  await take(k.id, 40);
  t.equal((await keys.get(k.id)).usedChars, 100, 'the quota can be used up exactly');
  await giveBack(k.id, 40);
  await giveBack(k.id, 60);
  t.equal((await keys.get(k.id)).usedChars, 0, 'given back');
  await giveBack(k.id, 10);
  t.equal((await keys.get(k.id)).usedChars, 0, 'never below zero');

  const results = await Promise.allSettled(Array.from({ length: 25 }, () => take(k.id, 10)));
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 10, '25 concurrent takes of 10 on a quota of 100: exactly 10 pass');
  t.ok(results.filter((r) => r.status === 'rejected').every((r) => r.reason.code === 42903));
  t.equal((await keys.get(k.id)).usedChars, 100);

  await t.rejects(db.knex.transaction(async (trx) => {
    await quota.giveBack(trx, k.id, 50);
    throw new Error('the enclosing work failed');
  }), /enclosing work failed/);
  t.equal((await keys.get(k.id)).usedChars, 100, 'a rolled-back transaction gives nothing back');

  const unlimited = await keys.create({ accountId: acc.id });
  await take(unlimited.id, 1_000_000);
  t.equal((await keys.get(unlimited.id)).usedChars, 1_000_000, 'usage is counted for unlimited keys too');
  const zero = await keys.create({ accountId: acc.id, quotaChars: 0 });
  await t.rejects(take(zero.id, 1), { code: 42903 });
  await keys.delete(zero.id);
  await t.rejects(take(zero.id, 0), { code: 40101, message: /deleted/ });
});
