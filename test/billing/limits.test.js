import t from 'tap';
import { randomUUID } from 'node:crypto';
import { ManualClock, tokens } from '@sawt/core';
import { FixedWindowRateLimiter } from '@sawt/plugin-billing';
import { bootDataLayer } from '../storage/fixtures/boot.js';

async function setup(t, opts) {
  const app = await bootDataLayer(t, opts);
  const accounts = app.get(tokens.accounts);
  const keys = app.get(tokens.apiKeys);
  const authn = app.get(tokens.authenticator);
  const wallet = app.get(tokens.wallet);
  /** An authenticated caller with a plan, a balance (micro) and optionally a character quota. */
  const caller = async ({ plan = 'free', balance = 1_000_000, quotaChars = null } = {}) => {
    const account = await accounts.create({ name: `acct-${plan}`, plan });
    if (balance > 0) await wallet.topUp(account.id, balance);
    return authn.authenticate((await keys.create({ accountId: account.id, quotaChars })).key);
  };
  return { app, keys, wallet, caller, admission: app.get(tokens.admission), concurrency: app.get(tokens.concurrency), rateLimiter: app.get(tokens.rateLimiter) };
}

const admitArgs = (auth, over = {}) => ({ auth, requestId: randomUUID(), chars: 100, costMicro: 1000, description: 'tts sawt-mini 100 chars', ...over });

t.test('free plan: one synthesis at a time; the second gets 42901 stating max and current', async (t) => {
  const { caller, admission, concurrency, wallet, keys } = await setup(t);
  const auth = await caller({ plan: 'free', balance: 10_000, quotaChars: 1000 });
  const first = await admission.admit(admitArgs(auth));
  await t.rejects(admission.admit(admitArgs(auth)), {
    code: 42901, status: 429,
    message: 'Concurrent request limit exceeded: your plan allows 1 concurrent request and 1 is in progress',
  });
  t.equal(await concurrency.inFlight(auth.account.id), 1);
  t.equal((await wallet.balance(auth.account.id)).reserved, 1000, 'the refused request reserved no money');
  t.equal((await keys.get(auth.key.id)).usedChars, 100, 'and took no characters');

  await first.settle();
  t.equal(await concurrency.inFlight(auth.account.id), 0, 'settle frees the slot');
  const second = await admission.admit(admitArgs(auth));
  await second.release('client disconnected');
  t.pass('the next request is admitted once the first is done');
});

t.test('plan limits: basic allows 2, starter 5; enterprise is unlimited', async (t) => {
  const { concurrency } = await setup(t);
  const basic = [await concurrency.acquire('acct-basic', 2), await concurrency.acquire('acct-basic', 2)];
  await t.rejects(concurrency.acquire('acct-basic', 2), { code: 42901, message: /allows 2 concurrent requests and 2 are in progress/ });
  basic[0].release();
  basic[0].release(); // idempotent: must not free a second slot
  t.equal(await concurrency.inFlight('acct-basic'), 1);
  await concurrency.acquire('acct-basic', 2);
  await t.rejects(concurrency.acquire('acct-basic', 2), { code: 42901 });
  t.equal(await concurrency.inFlight('other-account'), 0, 'limits are per account');

  const slots = await Promise.all(Array.from({ length: 200 }, () => concurrency.acquire('acct-enterprise', null)));
  t.equal(await concurrency.inFlight('acct-enterprise'), 200, 'unlimited, but still counted');
  slots.forEach((s) => s.release());
  t.equal(await concurrency.inFlight('acct-enterprise'), 0);
});

t.test('admission applies the plan: 30 concurrent enterprise requests all pass, starter gets 5', async (t) => {
  const { caller, admission } = await setup(t);
  const enterprise = await caller({ plan: 'enterprise' });
  const all = await Promise.all(Array.from({ length: 30 }, () => admission.admit(admitArgs(enterprise))));
  t.equal(all.length, 30);
  const starter = await caller({ plan: 'starter' });
  const results = await Promise.allSettled(Array.from({ length: 8 }, () => admission.admit(admitArgs(starter))));
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
  t.ok(results.filter((r) => r.status === 'rejected').every((r) => r.reason.code === 42901));
  const ws = await admission.admit(admitArgs(starter, { concurrency: false }));
  t.ok(ws, 'concurrency: false skips the slot');
});

t.test('admission: a later failure gives back what earlier steps took', async (t) => {
  const { caller, admission, concurrency, wallet, keys } = await setup(t);

  const poor = await caller({ plan: 'free', balance: 500, quotaChars: 1000 });
  await t.rejects(admission.admit(admitArgs(poor)), { code: 40201, message: 'Insufficient wallet balance: required 0.001, available 0.0005' });
  t.equal(await concurrency.inFlight(poor.account.id), 0, 'slot freed');
  t.equal((await keys.get(poor.key.id)).usedChars, 0, 'characters given back');

  const capped = await caller({ plan: 'free', quotaChars: 50 });
  await t.rejects(admission.admit(admitArgs(capped)), { code: 42903 });
  t.equal(await concurrency.inFlight(capped.account.id), 0, 'slot freed');
  t.equal((await wallet.balance(capped.account.id)).reserved, 0, 'no money held');
});

t.test('admission: settle charges and keeps the characters; release gives everything back', async (t) => {
  const { caller, admission, concurrency, wallet, keys } = await setup(t);
  const auth = await caller({ plan: 'basic', balance: 10_000, quotaChars: 1000 });

  const ok = await admission.admit(admitArgs(auth, { chars: 120, costMicro: 1200 }));
  t.equal(ok.costMicro, 1200);
  await ok.settle();
  await ok.settle();
  await ok.release('too late'); // no-op after settle
  t.same(await wallet.balance(auth.account.id), { accountId: auth.account.id, balance: 8800, reserved: 0, available: 8800 });
  t.equal((await keys.get(auth.key.id)).usedChars, 120);

  const failed = await admission.admit(admitArgs(auth, { chars: 300, costMicro: 3000 }));
  t.equal((await wallet.balance(auth.account.id)).available, 5800);
  await Promise.all([failed.release('engine error'), failed.release('engine error')]);
  await failed.settle(); // no-op after release
  t.same(await wallet.balance(auth.account.id), { accountId: auth.account.id, balance: 8800, reserved: 0, available: 8800 });
  t.equal((await keys.get(auth.key.id)).usedChars, 120, 'the failed request used no characters');
  t.equal(await concurrency.inFlight(auth.account.id), 0);
  t.match((await wallet.ledger(auth.account.id))[0], { kind: 'release', requestId: failed.requestId, description: 'engine error' });
});

t.test('admission: releaseAll (shutdown) releases every open admission', async (t) => {
  const { caller, admission, concurrency, wallet } = await setup(t);
  const auth = await caller({ plan: 'growth', balance: 10_000 });
  const open = await Promise.all(Array.from({ length: 4 }, () => admission.admit(admitArgs(auth))));
  await open[0].settle();
  await admission.releaseAll('shutdown');
  t.same(await wallet.balance(auth.account.id), { accountId: auth.account.id, balance: 9000, reserved: 0, available: 9000 });
  t.equal(await concurrency.inFlight(auth.account.id), 0);
});

t.test('rate limit: over the window budget gives 42902 with Retry-After', async (t) => {
  const { rateLimiter } = await setup(t, { billing: { rateLimit: { windowMs: 60_000, max: 3 } } });
  for (let i = 0; i < 3; i++) await rateLimiter.hit('key-a');
  const err = await rateLimiter.hit('key-a').catch((e) => e);
  t.match(err, { code: 42902, status: 429, message: /Rate limit exceeded for this API key; retry after \d+ seconds?/ });
  const retryAfter = Number(err.headers['retry-after']);
  t.ok(retryAfter >= 59 && retryAfter <= 60, `Retry-After is the rest of the window (${retryAfter})`);
  await rateLimiter.hit('key-b');
  t.pass('other keys have their own budget');
});

t.test('rate limit: the window resets, Retry-After is at least 1, max 0 is unlimited', async (t) => {
  const clock = new ManualClock();
  const limiter = new FixedWindowRateLimiter({ windowMs: 10_000, max: 2 }, clock);
  await limiter.hit('k');
  await clock.advance(9_950);
  await limiter.hit('k');
  const err = await limiter.hit('k').catch((e) => e);
  t.equal(err.code, 42902);
  t.equal(err.headers['retry-after'], '1', '50 ms left rounds up to 1 second');
  await clock.advance(50);
  await limiter.hit('k');
  t.pass('a new window starts');

  const unlimited = new FixedWindowRateLimiter({ windowMs: 1000, max: 0 }, clock);
  for (let i = 0; i < 10_000; i++) await unlimited.hit('k');
  t.pass('max 0 never limits');
});

t.test('rate limit defaults: 600 requests per 60 s', async (t) => {
  const { rateLimiter } = await setup(t);
  for (let i = 0; i < 600; i++) await rateLimiter.hit('key');
  await t.rejects(rateLimiter.hit('key'), { code: 42902 });
});
