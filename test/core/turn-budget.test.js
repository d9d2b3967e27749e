// TurnBudget: delivery work of many clients shares each event-loop turn. Within the budget a step
// goes on at once; past it, the step waits for the next turn, and a timer due meanwhile runs first.
import t from 'tap';
import { TurnBudget } from '@sawt/core';
import { spin, stepsPerTurn } from '../helpers/turns.js';

t.test('steps go on within the budget and wait for the next turn past it', async (t) => {
  // A generous budget: the checks within it hold on a loaded machine too.
  const budget = new TurnBudget(200);
  t.equal(budget.spend(), null, 'the first step of a stretch goes on');
  spin(1);
  t.equal(budget.spend(), null, 'still within the budget');
  spin(200);
  const later = budget.spend();
  t.ok(later instanceof Promise, 'past the budget the step waits');
  await later;
  // A wait ends in the loop's check phase: a new stretch begins there, and the next wait ends
  // only after the loop went round, its due timers first.
  const order = [];
  setTimeout(() => order.push('timer'), 0);
  t.equal(budget.spend(), null, 'after the wait a new stretch begins');
  spin(200);
  const again = budget.spend();
  t.ok(again instanceof Promise, 'past the budget again, the step waits again');
  await again;
  order.push('step');
  t.same(order, ['timer', 'step'], 'a due timer ran before the second wait ended');
});

t.test('many waiting steps resume in their order and each stretch stays near the budget', async (t) => {
  const budget = new TurnBudget(3);
  const done = [];
  const stretches = [];
  let stretch = { start: performance.now(), end: 0 };
  const worker = async (id) => {
    for (let i = 0; i < 5; i++) {
      const later = budget.spend();
      if (later) {
        await later;
      }
      spin(1);
      done.push(`${id}.${i}`);
    }
  };
  const check = setInterval(() => {
    stretches.push(performance.now() - stretch.start);
    stretch = { start: performance.now() };
  }, 0);
  await Promise.all([worker('a'), worker('b'), worker('c')]);
  clearInterval(check);
  t.equal(done.length, 15, 'every step ran');
  for (const id of ['a', 'b', 'c']) t.same(done.filter((d) => d.startsWith(id)), [0, 1, 2, 3, 4].map((i) => `${id}.${i}`), `${id}'s steps in order`);
  t.ok(stretches.length >= 3, `timers ran between stretches (${stretches.length} times)`);
});

t.test('grant(): steps that waited are granted again in the turn they wake in, not all run there', async (t) => {
  const budget = new TurnBudget(5);
  const steps = stepsPerTurn();
  // 20 steps of 2 ms asked for at once: within the budget some run now, the others wait.
  await Promise.all(Array.from({ length: 20 }, async () => {
    const wait = budget.grant();
    if (wait) await wait;
    steps.note();
    spin(2);
  }));
  const perTurn = steps.stop();
  t.ok(Math.max(...perTurn) <= 4, `at most 4 steps of 2 ms in one turn (most: ${Math.max(...perTurn)})`);
  t.ok(perTurn.length >= 5, `the 20 steps ran over ${perTurn.length} turns`);
});
