import t from 'tap';
import { ManualClock, tokens } from '@sawt/core';
import { bootDataLayer } from '../storage/fixtures/boot.js';
import { walletRace } from './fixtures/scenarios.js';
import { startHolder } from './fixtures/holder-process.js';

async function setup(t) {
  const app = await bootDataLayer(t);
  return { app, accounts: app.get(tokens.accounts), wallet: app.get(tokens.wallet) };
}

t.test('50 concurrent reservations on a balance covering 10: exactly 10 succeed, settled to exactly 0', async (t) => {
  const { accounts, wallet } = await setup(t);
  await walletRace(t, { accounts, wallet, outcome: 'settle' });
});

t.test('50 concurrent reservations on a balance covering 10, all released: balance unchanged', async (t) => {
  const { accounts, wallet } = await setup(t);
  await walletRace(t, { accounts, wallet, outcome: 'release' });
});

t.test('insufficient balance states required and available amounts in decimals', async (t) => {
  const { accounts, wallet } = await setup(t);
  const acc = await accounts.create({ name: 'A', plan: 'free' });
  await wallet.topUp(acc.id, 1000);
  await t.rejects(wallet.reserve(acc.id, 4200, { requestId: 'r1' }), {
    code: 40201, status: 402, message: 'Insufficient wallet balance: required 0.0042, available 0.001',
  });
  const held = await wallet.reserve(acc.id, 600, { requestId: 'r2' });
  await t.rejects(wallet.reserve(acc.id, 500, { requestId: 'r3' }), { message: /required 0.0005, available 0.0004$/ }, 'reserved money is not available');
  await held.release('test');
  t.same(await wallet.balance(acc.id), { accountId: acc.id, balance: 1000, reserved: 0, available: 1000 });
  const fresh = await accounts.create({ name: 'B', plan: 'free' });
  await t.rejects(wallet.reserve(fresh.id, 1, { requestId: 'r4' }), { code: 40201, message: /available 0$/ }, 'an account without a wallet has nothing');
  t.ok(await wallet.reserve(fresh.id, 0, { requestId: 'r5' }), 'a free request needs no money');
});

t.test('partial settle charges the given amount and frees the rest, with a ledger row for each', async (t) => {
  const { accounts, wallet } = await setup(t);
  const acc = await accounts.create({ name: 'A', plan: 'free' });
  await wallet.topUp(acc.id, 10_000, { requestId: 'topup-1', description: 'initial' });
  const r = await wallet.reserve(acc.id, 4000, { requestId: 'req-1', description: 'tts 400 chars' });
  t.same(await wallet.balance(acc.id), { accountId: acc.id, balance: 10_000, reserved: 4000, available: 6000 });
  await t.rejects(r.settle(4001), RangeError, 'cannot charge more than was reserved');
  await r.settle(2500);
  await r.settle(2500); // idempotent
  await r.release('late failure'); // no-op after settle
  t.same(await wallet.balance(acc.id), { accountId: acc.id, balance: 7500, reserved: 0, available: 7500 });
  const ledger = (await wallet.ledger(acc.id)).reverse();
  t.match(ledger, [
    { kind: 'topup', amount: 10_000, balanceAfter: 10_000, requestId: 'topup-1', description: 'initial' },
    { kind: 'reserve', amount: 4000, balanceAfter: 10_000, requestId: 'req-1', reservationId: r.id, description: 'tts 400 chars' },
    { kind: 'settle', amount: 2500, balanceAfter: 7500, requestId: 'req-1', reservationId: r.id },
    { kind: 'release', amount: 1500, balanceAfter: 7500, requestId: 'req-1', reservationId: r.id },
  ]);
  t.equal(ledger.length, 4);
});

t.test('release is idempotent and settle after release charges nothing', async (t) => {
  const { accounts, wallet } = await setup(t);
  const acc = await accounts.create({ name: 'A', plan: 'free' });
  await wallet.topUp(acc.id, 5000);
  const r = await wallet.reserve(acc.id, 5000, { requestId: 'req-1' });
  await Promise.all([r.release('client disconnected'), r.release('again')]);
  await r.settle();
  t.same(await wallet.balance(acc.id), { accountId: acc.id, balance: 5000, reserved: 0, available: 5000 });
  const kinds = (await wallet.ledger(acc.id)).map((e) => `${e.kind}:${e.description ?? ''}`);
  t.same(kinds, ['release:client disconnected', 'reserve:', 'topup:']);
});

t.test('top-ups are validated and unknown accounts are reported', async (t) => {
  const { accounts, wallet } = await setup(t);
  const acc = await accounts.create({ name: 'A', plan: 'free' });
  await t.rejects(wallet.topUp(acc.id, -5), RangeError);
  await t.rejects(wallet.topUp(acc.id, 0), RangeError);
  await t.rejects(wallet.topUp(acc.id, 1.5), RangeError);
  await t.rejects(wallet.topUp('ghost', 100), { code: 40401, message: "Account 'ghost' not found" });
  await t.rejects(wallet.balance('ghost'), { code: 40401 });
  t.same(await wallet.balance(acc.id), { accountId: acc.id, balance: 0, reserved: 0, available: 0 }, 'a new account has an empty wallet');
  t.same(await wallet.topUp(acc.id, 2_000_000), { accountId: acc.id, balance: 2_000_000, reserved: 0, available: 2_000_000 });
});

t.test('stop() releases what this process reserved; a later boot does not touch fresh reservations of others', async (t) => {
  const dataDir = t.testdir();
  const first = await bootDataLayer(t, { dataDir });
  const acc = await first.get(tokens.accounts).create({ name: 'A', plan: 'free' });
  await first.get(tokens.wallet).topUp(acc.id, 9000);
  await first.get(tokens.wallet).reserve(acc.id, 3000, { requestId: 'in-flight' });

  // Another process (the CLI) boots while the reservation is live: it must leave it alone.
  const cli = await bootDataLayer(t, { dataDir });
  t.equal((await cli.get(tokens.wallet).balance(acc.id)).reserved, 3000, 'a live reservation of another process survives a boot');
  await cli.stop();
  t.equal((await first.get(tokens.wallet).balance(acc.id)).reserved, 3000, "stopping the CLI does not release the server's reservation");

  await first.stop();
  const after = await bootDataLayer(t, { dataDir });
  const w = after.get(tokens.wallet);
  t.same(await w.balance(acc.id), { accountId: acc.id, balance: 9000, reserved: 0, available: 9000 }, 'released at shutdown');
  t.match((await w.ledger(acc.id))[0], { kind: 'release', amount: 3000, requestId: 'in-flight', description: 'shutdown' });
});

/** An account with `balance` micro-units and a key with a character quota, made by a short-lived boot. */
async function fundedAccount(t, dataDir, { balance = 10_000, quotaChars = 1000, storage } = {}) {
  const app = await bootDataLayer(t, { dataDir, storage });
  const { account } = await app.get(tokens.wallet).openAccount({ name: 'A', plan: 'enterprise', balanceMicro: balance });
  const key = await app.get(tokens.apiKeys).create({ accountId: account.id, quotaChars });
  await app.stop();
  return { account, key };
}

t.test('kill -9 of a process holding reservations: the next start on the same node gives money and quota back at once', async (t) => {
  const dataDir = t.testdir();
  const { account, key } = await fundedAccount(t, dataDir);
  const holder = await startHolder(t, { dataDir });
  const a = await holder.send({ op: 'reserve', account: account.id, amount: 3000, keyId: key.id, chars: 40, requestId: 'req-a' });
  const b = await holder.send({ op: 'reserve', account: account.id, amount: 2000, keyId: key.id, chars: 10, requestId: 'req-b' });
  t.ok(a.id && b.id, 'two reservations held');

  // A process booting while the holder lives (the admin CLI) leaves its reservations alone.
  const bystander = await bootDataLayer(t, { dataDir });
  t.same(await bystander.get(tokens.wallet).balance(account.id), { accountId: account.id, balance: 10_000, reserved: 5000, available: 5000 }, 'a live owner keeps its reservations');
  t.equal((await bystander.get(tokens.apiKeys).get(key.id)).usedChars, 50, 'and its quota characters');
  await bystander.stop();

  holder.kill('SIGKILL');
  t.match(await holder.exited, { signal: 'SIGKILL' });
  const restarted = await bootDataLayer(t, { dataDir });
  const w = restarted.get(tokens.wallet);
  t.same(await w.balance(account.id), { accountId: account.id, balance: 10_000, reserved: 0, available: 10_000 }, 'money back at start, no waiting');
  t.equal((await restarted.get(tokens.apiKeys).get(key.id)).usedChars, 0, 'quota characters back');
  const releases = (await w.ledger(account.id)).filter((e) => e.kind === 'release');
  t.same(releases.map((e) => e.reservationId).sort(), [a.id, b.id].sort(), 'one release row per reservation');
  t.ok(releases.every((e) => new RegExp(`^owner process ${holder.pid} on node .+ is gone$`).test(e.description)), 'the ledger says why');
  const db = restarted.get(tokens.database).knex;
  t.equal((await db('lease_owners').where({ pid: holder.pid })).length, 0, "the dead process's registration is removed");
});

t.test("a dead process on another node: its reservations wait for the lease to run out, then a live process's periodic sweep releases them", async (t) => {
  const dataDir = t.testdir();
  const { account, key } = await fundedAccount(t, dataDir);
  const leases = { ttlMs: 3000, heartbeatMs: 500, sweepMs: 200 };
  // Both processes on one ManualClock's time: the holder's lease ends at start + ttlMs exactly.
  const clock = new ManualClock();
  const holder = await startHolder(t, { dataDir, nodeId: 'elsewhere', billing: { leases }, clockStart: clock.now() });
  const r = await holder.send({ op: 'reserve', account: account.id, amount: 3000, keyId: key.id, chars: 40 });
  holder.kill('SIGKILL');
  await holder.exited;
  const survivor = await bootDataLayer(t, { dataDir, billing: { leases }, clock });
  const w = survivor.get(tokens.wallet);
  await clock.advance(leases.ttlMs);
  t.equal((await w.balance(account.id)).reserved, 3000, 'the sweeps until the lease ran out leave it: its owner might be alive');
  await clock.advance(leases.sweepMs);
  t.equal((await w.balance(account.id)).reserved, 0, 'the first sweep after it released it');
  const release = (await w.ledger(account.id)).find((e) => e.kind === 'release');
  t.match(release, { reservationId: r.id, amount: 3000, description: `lease expired at ${new Date(clock.now() - leases.sweepMs).toISOString()}: its owner stopped renewing it` });
  t.equal((await survivor.get(tokens.apiKeys).get(key.id)).usedChars, 0, 'quota characters back');
});

t.test('a live owner is never swept; paused past its lease (SIGSTOP) it is, and its late settle charges nothing', async (t) => {
  const dataDir = t.testdir();
  const { account, key } = await fundedAccount(t, dataDir);
  const leases = { ttlMs: 1500, heartbeatMs: 300, sweepMs: 200 };
  // The holder and the sweeper each on a ManualClock from the same start; time passes for both in
  // 100 ms steps (the holder heart-beats, the sweeper sweeps), or only for the sweeper while the holder is paused.
  const clock = new ManualClock();
  const holder = await startHolder(t, { dataDir, billing: { leases }, clockStart: clock.now() });
  const passForBoth = async (ms) => {
    for (let step = 0; step < ms; step += 100) {
      await holder.send({ op: 'advance', ms: 100 });
      await clock.advance(100);
    }
  };
  const sweeper = await bootDataLayer(t, { dataDir, billing: { leases }, clock });
  const w = sweeper.get(tokens.wallet);
  const r = await holder.send({ op: 'reserve', account: account.id, amount: 3000, keyId: key.id, chars: 40, requestId: 'paused' });
  await passForBoth(2 * leases.ttlMs);
  t.equal((await w.balance(account.id)).reserved, 3000, 'held across several lease lengths: its owner renews it');

  holder.kill('SIGSTOP');
  t.teardown(() => holder.kill('SIGCONT'));
  const paused = leases.ttlMs + leases.sweepMs;
  await clock.advance(paused);
  t.equal((await w.balance(account.id)).reserved, 0, 'released once the paused owner stopped renewing');
  t.equal((await sweeper.get(tokens.apiKeys).get(key.id)).usedChars, 0, 'quota characters back');

  holder.kill('SIGCONT');
  t.same(await holder.send({ op: 'settle', id: r.id }), { ok: true }, 'the late settle completes without error');
  t.same(await w.balance(account.id), { accountId: account.id, balance: 10_000, reserved: 0, available: 10_000 }, 'and charges nothing: no double count');
  const rows = (await w.ledger(account.id)).filter((e) => e.reservationId === r.id).map((e) => `${e.kind}:${e.amount}`);
  t.same(rows, ['release:3000', 'reserve:3000'], 'released once, never also charged');
  t.equal((await sweeper.get(tokens.apiKeys).get(key.id)).usedChars, 0);

  // The resumed process's timers catch up first (its heartbeat registers it again), then time passes for both.
  t.same(await holder.send({ op: 'advance', ms: paused }), { ok: true });
  const again = await holder.send({ op: 'reserve', account: account.id, amount: 1000, keyId: key.id, chars: 10 });
  await passForBoth(2 * leases.ttlMs);
  t.equal((await w.balance(account.id)).reserved, 1000, 'the resumed process registers again and its new reservation is renewed');
  t.same(await holder.send({ op: 'settle', id: again.id }), { ok: true });
  t.same(await w.balance(account.id), { accountId: account.id, balance: 9000, reserved: 0, available: 9000 });
  await holder.send({ op: 'exit' }).catch(() => {});
});

t.test('openAccount: the account and its opening balance in one transaction; 0 is a valid balance', async (t) => {
  const { app, accounts, wallet } = await setup(t);
  const zero = await wallet.openAccount({ name: 'Zero', plan: 'free', balanceMicro: 0 });
  t.same(zero.balance, { accountId: zero.account.id, balance: 0, reserved: 0, available: 0 });
  t.same(await wallet.ledger(zero.account.id), [], 'no movement, no ledger row');
  const funded = await wallet.openAccount({ name: 'Funded', plan: 'basic', balanceMicro: 2_500_000 });
  t.match(await wallet.ledger(funded.account.id), [{ kind: 'topup', amount: 2_500_000, balanceAfter: 2_500_000, description: 'opening balance' }]);
  const before = (await accounts.list()).length;
  await t.rejects(wallet.openAccount({ name: 'Bad', plan: 'free', balanceMicro: -1 }), RangeError);
  await t.rejects(wallet.openAccount({ name: 'Bad', plan: 'free', balanceMicro: Number.MAX_SAFE_INTEGER + 2 }), RangeError);
  await t.rejects(wallet.openAccount({ name: '', plan: 'free', balanceMicro: 5 }), { code: 40001 });
  await t.rejects(wallet.openAccount({ name: 'Bad', plan: 'gold', balanceMicro: 5 }), { code: 40001 });
  t.equal((await accounts.list()).length, before, 'a refused opening creates nothing');
  // A failure after the account row was written (the wallet row) rolls the account back too.
  await app.get(tokens.database).knex.raw("CREATE TRIGGER no_wallets BEFORE INSERT ON wallets BEGIN SELECT RAISE(ABORT, 'wallets are read-only'); END");
  await t.rejects(wallet.openAccount({ name: 'Half', plan: 'free', balanceMicro: 5 }), /read-only/);
  t.notOk((await accounts.list()).some((a) => a.name === 'Half'), 'no account without its wallet');
});

t.test('reservations arriving together are decided one by one, in order: quota, deleted key, money', async (t) => {
  // They go to the database in one batch (group commit); each must be decided as if alone.
  const { app, accounts, wallet } = await setup(t);
  const keys = app.get(tokens.apiKeys);
  const acc = await accounts.create({ name: 'Batch', plan: 'enterprise' });
  await wallet.topUp(acc.id, 1000 * 5);
  const limited = await keys.create({ accountId: acc.id, quotaChars: 30 });
  const gone = await keys.create({ accountId: acc.id });
  const free = await keys.create({ accountId: acc.id });
  await keys.delete(gone.id);
  const ask = (key, chars, i) => wallet.reserve(acc.id, 1000, { requestId: `b-${i}`, quota: { keyId: key.id, chars } });
  const plan = [[limited, 10], [limited, 10], [gone, 5], [limited, 10], [limited, 10], [free, 5], [free, 5], [free, 5]];
  const results = await Promise.allSettled(plan.map(([key, chars], i) => ask(key, chars, i)));
  const codes = results.map((r) => (r.status === 'fulfilled' ? 'ok' : r.reason.code));
  // limited: 10 + 10 + 10 fit in 30, the fourth does not; gone: 40101; money for five in all: the last free one is refused.
  t.same(codes, ['ok', 'ok', 40101, 'ok', 42903, 'ok', 'ok', 40201]);
  t.match(results[4].reason.message, /30/, 'the quota error states the quota');
  t.same(await wallet.balance(acc.id), { accountId: acc.id, balance: 5000, reserved: 5000, available: 0 });
  const used = async (key) => (await keys.get(key.id)).usedChars;
  t.equal(await used(limited), 30, 'the limited key holds the characters of its three reservations');
  t.equal(await used(free), 10);
  const held = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
  await Promise.all(held.map((r) => r.release('test')));
  t.equal(await used(limited), 0, 'released: characters given back');
  t.same(await wallet.balance(acc.id), { accountId: acc.id, balance: 5000, reserved: 0, available: 5000 });
  const ledger = await wallet.ledger(acc.id, { limit: 100 });
  t.equal(ledger.filter((e) => e.kind === 'reserve').length, 5, 'one reserve row per reservation held');
});
