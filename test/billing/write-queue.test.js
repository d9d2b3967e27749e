// The wallet's write queue: one transaction at a time; requests waiting together share one;
// reservations go ahead of closes, and closes are never held back for more than one batch of
// reservations once due.
import t from 'tap';
import { WalletWriteQueue } from '../../plugins/billing/dist/write-queue.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const reservation = (id) => ({ id, accountId: 'a', amount: 1, requestId: id, description: null, quota: null });
const closing = (id) => ({ held: { id, accountId: 'a', amount: 1, requestId: id, keyId: null, quotaChars: 0 }, charge: 1, reason: null });

/** A queue whose transactions take `ms` each and are recorded: [kind, ids]. */
function recordingQueue(ms = 10, closeDelayMs = 5) {
  const log = [];
  let open = 0;
  let overlapped = false;
  const write = (kind, result) => async (batch) => {
    if (++open > 1) overlapped = true;
    log.push([kind, batch.map((r) => r.id ?? r.held.id)]);
    await sleep(ms);
    open--;
    return batch.map(result);
  };
  const queue = new WalletWriteQueue(write('reserve', (r) => (r.id === 'refused' ? new Error('no money') : null)), write('close', (c) => c.held.id !== 'closed-already'), { closeDelayMs, maxBatch: 64 });
  return { queue, log, overlapped: () => overlapped };
}

t.test('reservations asked for in one turn share one transaction; each gets its own outcome', async (t) => {
  const { queue, log } = recordingQueue();
  const results = await Promise.allSettled(['r1', 'r2', 'refused', 'r3'].map((id) => queue.reserve(reservation(id))));
  t.same(log, [['reserve', ['r1', 'r2', 'refused', 'r3']]], 'one transaction');
  t.same(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  t.equal(results[2].reason.message, 'no money');
});

t.test('closes share one transaction after their delay, and say whether they closed', async (t) => {
  const { queue, log } = recordingQueue();
  const a = queue.close(closing('c1'));
  await sleep(1);
  const b = queue.close(closing('closed-already'));
  t.same(await Promise.all([a, b]), [true, false]);
  t.same(log, [['close', ['c1', 'closed-already']]], 'one transaction for both');
});

t.test('a reservation asked for while closes wait for their turn goes first', async (t) => {
  const { queue, log } = recordingQueue(10, 50);
  const closed = queue.close(closing('c1'));
  await sleep(2); // a sequential client's next request, just after the previous response ended
  const reserved = queue.reserve(reservation('r1'));
  await Promise.all([closed, reserved]);
  t.same(log.map(([kind]) => kind), ['reserve', 'close']);
});

t.test('one transaction at a time; due closes wait for at most one batch of reservations', async (t) => {
  const { queue, log, overlapped } = recordingQueue(10, 1);
  const pending = [queue.reserve(reservation('r1'))];
  await sleep(3); // r1 is being written; a close falls due meanwhile, and reservations keep coming
  pending.push(queue.close(closing('c1')));
  for (let i = 2; i <= 5; i++) {
    pending.push(queue.reserve(reservation(`r${i}`)));
    await sleep(4);
  }
  await Promise.all(pending);
  t.notOk(overlapped(), 'never two transactions at once');
  const closeAt = log.findIndex(([kind]) => kind === 'close');
  t.ok(closeAt >= 1 && closeAt <= 2, `the close went after at most one more batch of reservations (log: ${JSON.stringify(log)})`);
  t.same(log.filter(([kind]) => kind === 'reserve').flatMap(([, ids]) => ids), ['r1', 'r2', 'r3', 'r4', 'r5'], 'reservations in order');
});
