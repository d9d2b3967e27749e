// Sampling of repeated log lines (a 429 flood): first line per window written, the rest counted.
import t from 'tap';
import { LogSampler } from '@sawt/core';

t.test('one line per key and window, carrying how many were left out', async (t) => {
  const s = new LogSampler(1000);
  t.equal(s.take('k:42902', 0), 0, 'first line written');
  for (let i = 1; i <= 5; i++) t.equal(s.take('k:42902', i * 100), null, 'same window: left out');
  t.equal(s.take('other:42902', 150), 0, 'another key has its own window');
  t.equal(s.take('k:42902', 1000), 5, 'next window: written, with the 5 left out');
  t.same(s.flush(1500), [], 'nothing left out since');
  t.equal(s.take('k:42902', 1100), null);
  t.same(s.flush(2100), [{ key: 'k:42902', suppressed: 1 }], 'a flood tail is reported once its window ended');
  t.same(s.flush(5000), [], 'and only once');
  t.equal(s.take('k:42902', 5000), 0, 'quiet keys are forgotten');
});
