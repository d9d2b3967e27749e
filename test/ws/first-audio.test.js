// FirstAudioWaits: a piece already sending audio yields the event loop while another waits for its first.
import t from 'tap';
import { FirstAudioWaits } from '../../plugins/transport-ws/dist/first-audio.js';

t.test('yields only while some piece waits, and each wait ends once', async (t) => {
  const waits = new FirstAudioWaits();
  t.equal(waits.yieldToWaiting(), null, 'nobody waits: no yield');
  const a = waits.enter();
  const b = waits.enter();
  const y = waits.yieldToWaiting();
  t.ok(y instanceof Promise, 'a piece waits: yield');
  await y;
  a();
  a(); // idempotent: does not end b's wait
  t.ok(waits.yieldToWaiting() instanceof Promise, 'b still waits');
  b();
  t.equal(waits.yieldToWaiting(), null, 'all first audio sent');
});
