import t from 'tap';
import { tokens } from '@sawt/core';
import { bootDataLayer, runInChildProcess } from '../storage/fixtures/boot.js';
import { walletRace } from './fixtures/scenarios.js';

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
  await t.rejects(wallet.reserve(acc.id, 500, { requestId: 'r3' }), { message: /required 0.0005, available 0.0004$/, }, 'reserved money is not available');
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

t.test('reservations orphaned by a crashed process are released at start once stale', async (t) => {
  const dataDir = t.testdir();
  const setupApp = await bootDataLayer(t, { dataDir });
  const acc = await setupApp.get(tokens.accounts).create({ name: 'A', plan: 'free' });
  await setupApp.get(tokens.wallet).topUp(acc.id, 9000);
  await setupApp.stop();

  // A server process reserves money and dies before settling (no stop()).
  const reservationId = (await runInChildProcess(dataDir, `
    const r = await app.get(tokens.wallet).reserve(${JSON.stringify(acc.id)}, 3000, { requestId: 'orphan' });
    console.log(r.id);
    process.exit(1);
  `).catch((e) => e.stdout)).trim();

  const fresh = await bootDataLayer(t, { dataDir });
  t.equal((await fresh.get(tokens.wallet).balance(acc.id)).reserved, 3000, 'a young open reservation is left alone at start (its owner may be alive)');
  // An hour passes.
  await fresh.get(tokens.database).knex('reservations').where({ id: reservationId }).update({ created_at: new Date(Date.now() - 3_601_000).toISOString() });
  await fresh.stop();

  const disabled = await bootDataLayer(t, { dataDir, billing: { staleReservationMs: 0 } });
  t.equal((await disabled.get(tokens.wallet).balance(acc.id)).reserved, 3000, 'staleReservationMs 0 keeps it');
  await disabled.stop();

  const restarted = await bootDataLayer(t, { dataDir });
  const w = restarted.get(tokens.wallet);
  t.same(await w.balance(acc.id), { accountId: acc.id, balance: 9000, reserved: 0, available: 9000 }, 'released at the next start');
  t.match((await w.ledger(acc.id))[0], { kind: 'release', amount: 3000, requestId: 'orphan', reservationId, description: /^stale/ });
});
