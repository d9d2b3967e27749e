// The rules of the addon's one thread-pool type (native/priority_pool.h), which phonemize, espeak
// synthesis, HTS and ONNX runs all use: urgent tasks first, later tasks yield to urgent ones, order
// kept within a queue. Driven through the addon's test-only export poolOrder, which runs named tasks
// on a pool of its own and reports the order they ran in (never how long anything took).
import t from 'tap';

const { nativeAddon } = await import('@sawt/native');
const poolOrder = (lanes, tasks) => nativeAddon().poolOrder(lanes, tasks);

t.test('urgent tasks run before later ones queued earlier', async (t) => {
  const order = await poolOrder('shared', [['later 1', false], ['later 2', false], ['urgent 1', true], ['later 3', false], ['urgent 2', true]]);
  t.same(order.slice(0, 2), ['urgent 1', 'urgent 2']);
});

t.test('within a queue, tasks run in the order they were submitted', async (t) => {
  const tasks = Array.from({ length: 12 }, (_, i) => [`${i % 3 === 0 ? 'urgent' : 'later'} ${i}`, i % 3 === 0]);
  const order = await poolOrder('shared', tasks);
  t.same(order, [...tasks.filter(([, urgent]) => urgent), ...tasks.filter(([, urgent]) => !urgent)].map(([name]) => name));
});

t.test('a later task on its own thread yields until no urgent task is queued or running', async (t) => {
  // The later task is already on its thread, waiting, while the urgent ones are held back: it runs
  // only once both urgent tasks (the second queued behind the first) have run.
  const order = await poolOrder('split', [['urgent 1', true], ['later 1', false], ['urgent 2', true], ['later 2', false]]);
  t.same(order, ['urgent 1', 'urgent 2', 'later 1', 'later 2']);
});

t.test('with split lanes and no later task, urgent tasks run in order', async (t) => {
  t.same(await poolOrder('split', [['urgent 1', true], ['urgent 2', true]]), ['urgent 1', 'urgent 2']);
});
