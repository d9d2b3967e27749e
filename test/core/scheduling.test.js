// Core's scheduling rules, one test each, on a ManualClock: time moves and turns pass only when
// the test says so, so nothing here depends on how fast the machine is.
import t from 'tap';
import { FirstAudioWaits, ManualClock, RunQueue, TurnBudget, eachInTurns } from '@sawt/core';

t.test('budget: steps go on within the budget and wait for the next turn past it', async (t) => {
  const clock = new ManualClock();
  const budget = new TurnBudget(5, clock);
  t.equal(budget.spend(), null, 'the first step of a stretch goes on');
  await clock.advance(4);
  t.equal(budget.spend(), null, 'still within the budget');
  await clock.advance(1);
  let waited = false;
  budget.spend().then(() => (waited = true));
  await clock.advance(100);
  t.notOk(waited, 'the wait ends with the turn, not with time');
  await clock.turn();
  t.ok(waited, 'the next turn ends the wait');
  t.equal(budget.spend(), null, 'a new stretch begins in that turn');
});

t.test('budget grants: steps that waited are granted again in their turn, not all run there', async (t) => {
  const clock = new ManualClock();
  const budget = new TurnBudget(5, clock);
  let turn = 0;
  const ran = [];
  // Six steps of 2 ms asked for at once: three fit in a 5 ms stretch (0, 2, 4 ms in).
  const steps = Array.from({ length: 6 }, async (_, id) => {
    const wait = budget.grant();
    if (wait) await wait;
    ran.push([id, turn]);
    await clock.advance(2);
  });
  await clock.advance(0);
  while (ran.length < 6 && turn < 10) {
    turn++;
    await clock.turn();
  }
  await Promise.all(steps);
  t.same(ran, [[0, 0], [1, 0], [2, 0], [3, 1], [4, 1], [5, 1]], 'three steps per turn, in the order asked');
});

t.test('first audio: a piece sending audio yields only while another waits for its first', async (t) => {
  const clock = new ManualClock();
  const waits = new FirstAudioWaits(clock);
  t.equal(waits.yieldToWaiting(), null, 'nobody waits: no yield');
  const a = waits.enter();
  const b = waits.enter();
  let yielded = false;
  waits.yieldToWaiting().then(() => (yielded = true));
  await clock.advance(0);
  t.notOk(yielded, 'the yield lasts until the next turn');
  await clock.turn();
  t.ok(yielded);
  a();
  a(); // idempotent: does not end b's wait
  t.ok(waits.yieldToWaiting() instanceof Promise, 'b still waits');
  b();
  t.equal(waits.yieldToWaiting(), null, 'all first audio sent');
});

t.test('eachInTurns: one item per turn, in order', async (t) => {
  const clock = new ManualClock();
  const seen = [];
  eachInTurns(['a', 'b', 'c'], (x, i) => seen.push(`${x}${i}`), clock);
  t.same(seen, ['a0'], 'the first at once');
  await clock.turn();
  t.same(seen, ['a0', 'b1']);
  await clock.turn();
  t.same(seen, ['a0', 'b1', 'c2']);
});

/** A RunQueue whose model runs finish when the test says: runs lists the rows of each run started. */
function heldQueue(slots, maxRows) {
  const runs = [];
  const finish = [];
  const queue = new RunQueue(slots, maxRows, (rows) => {
    runs.push(rows);
    return new Promise((resolve) => finish.push(resolve));
  });
  return { queue, runs, finishNext: () => finish.shift()() };
}

t.test('run queue: urgent first, and one slot more for urgent work only', async (t) => {
  const { queue, runs, finishNext } = heldQueue(1, 8);
  const done = [];
  const ask = (row, urgency) => queue.submit([row], urgency).then(() => done.push(row));
  ask('l1', 'later');
  ask('l2', 'later');
  ask('u1', 'urgent');
  t.same(runs, [['l1'], ['u1']], 'the slots are busy: later work waits, urgent work takes the extra slot');
  finishNext();
  finishNext();
  await new Promise(setImmediate);
  t.same(done, ['l1', 'u1']);
  t.same(runs.at(-1), ['l2'], 'later work runs once a slot frees');
});

t.test('run queue: waiting requests share a run in arrival order, up to maxRows; the rest keeps its place', async (t) => {
  const { queue, runs, finishNext } = heldQueue(1, 3);
  queue.submit(['busy'], 'later');
  for (const r of ['l1', 'l2', 'l3', 'l4']) queue.submit([r], 'later');
  queue.submit(['u1'], 'urgent');
  t.same(runs, [['busy'], ['u1']], 'urgent work does not wait behind later work');
  finishNext();
  await new Promise(setImmediate);
  finishNext();
  await new Promise(setImmediate);
  t.same(runs.slice(2), [['l1', 'l2', 'l3']], 'one run for the waiting rows, in order, 3 rows at most');
  finishNext();
  await new Promise(setImmediate);
  t.same(runs.slice(3), [['l4']], 'what did not fit runs next');
});

t.test('run queue: a failed run fails every request in it', async (t) => {
  const queue = new RunQueue(1, 4, async () => {
    throw new Error('model failed');
  });
  await t.rejects(queue.submit(['a'], 'later'), /model failed/);
});

t.test('run queue: background work runs one batch at a time beside the slots, never merged with live work', async (t) => {
  const runs = [];
  const finish = new Map();
  const queue = new RunQueue(1, 8, (rows, background) => {
    runs.push({ rows, background });
    return new Promise((resolve) => finish.set(rows[0], resolve));
  });
  const done = [];
  const ask = (row, lane) => queue.submit([row], lane).then(() => done.push(row));
  ask('b1', 'background');
  ask('b2', 'background');
  ask('b3', 'background');
  ask('l1', 'later');
  ask('u1', 'urgent');
  t.same(runs, [
    { rows: ['b1'], background: true },
    { rows: ['l1'], background: false },
    { rows: ['u1'], background: false },
  ], 'a background run takes no slot: the later run and the urgent run start beside it; the other background rows wait');
  finish.get('l1')();
  finish.get('u1')();
  ask('l2', 'later');
  await new Promise(setImmediate);
  t.same(runs.at(-1), { rows: ['l2'], background: false }, 'live work goes on while background work is still running');
  finish.get('b1')();
  await new Promise(setImmediate);
  t.same(runs.at(-1), { rows: ['b2', 'b3'], background: true }, 'the waiting background rows share the next background run');
  finish.get('l2')();
  finish.get('b2')();
  await new Promise(setImmediate);
  t.same(done.sort(), ['b1', 'b2', 'b3', 'l1', 'l2', 'u1']);
});
