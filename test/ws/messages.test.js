// Audio messages are written out by hand, as bytes (not through JSON.stringify, which copied and
// scanned the ~13 kB of base64 once more, nor as a string, which ws and the socket copied twice
// more): they must be exactly the JSON text JSON.stringify gives for the same message, Arabic
// alignment and characters that need escaping included, whatever chunks the audio came in.
import t from 'tap';
import { audioMessage, MessageBuffers } from '@sawt/plugin-transport-ws';

const pcm = Buffer.from(Int16Array.from({ length: 1201 }, (_, i) => Math.round(8000 * Math.sin(i / 7))).buffer);
const alignment = { chars: ['س', 'ل', 'ا', 'م', ' ', '"', '\\'], charStartTimesMs: [0, 40, 80, 120, 160, 170, 180], charDurationsMs: [40, 40, 40, 40, 10, 10, 10] };
const expected = (audio, a, isFinal) => JSON.stringify({ audio: audio.toString('base64'), sampleRate: 24000, ...(a && { alignment: a }), ...(isFinal && { isFinal: true }) });

t.test('an audio message is the JSON text of the same message', async (t) => {
  for (const [a, isFinal] of [[alignment, false], [null, true], [alignment, true], [null, false]]) {
    const msg = audioMessage(pcm, 24000, a, isFinal);
    t.ok(Buffer.isBuffer(msg), 'bytes');
    t.equal(msg.toString('utf8'), expected(pcm, a, isFinal), `same text (alignment ${a ? 'yes' : 'no'}, isFinal ${isFinal})`);
    const back = JSON.parse(msg);
    t.same(Buffer.from(back.audio, 'base64'), pcm, 'the audio decodes to the same PCM');
  }
});

t.test('the audio of several chunks is the base64 of their PCM one after another', async (t) => {
  // Cuts that keep 3-byte groups whole (encoded part by part) and cuts that do not (joined first).
  for (const cuts of [[600, 1200, 1800], [601, 1203, 2000], [1, 2], [2401]]) {
    const parts = [];
    let from = 0;
    for (const to of [...cuts, pcm.length]) (parts.push(pcm.subarray(from, to)), (from = to));
    const msg = audioMessage(parts, 24000, alignment, true);
    t.equal(msg.toString('utf8'), expected(pcm, alignment, true), `cut at ${cuts.join(', ')}`);
  }
});

t.test('an empty chunk gives an empty audio string', async (t) => {
  t.same(JSON.parse(audioMessage(Buffer.alloc(0), 16000, null, true)), { audio: '', sampleRate: 16000, isFinal: true });
  t.same(JSON.parse(audioMessage([], 16000, null, false)), { audio: '', sampleRate: 16000 });
});

t.test('message buffers are reused once given back, and never while still out', async (t) => {
  const buffers = new MessageBuffers();
  const a = audioMessage(pcm, 24000, alignment, false, buffers);
  const b = audioMessage(pcm.subarray(0, 600), 24000, null, true, buffers);
  t.not(a.buffer, b.buffer, 'two messages out at once do not share memory');
  t.equal(a.toString('utf8'), expected(pcm, alignment, false), 'the first is intact after the second was written');
  const backing = a.buffer;
  buffers.give(a);
  const c = audioMessage(pcm, 24000, null, false, buffers);
  t.equal(c.buffer, backing, 'a buffer given back is used again for a message of its size');
  t.equal(c.toString('utf8'), expected(pcm, null, false), 'and holds exactly the new message');
  t.equal(b.toString('utf8'), expected(pcm.subarray(0, 600), null, true), 'the message still out is untouched');
  // A message larger than the pooled sizes gets a buffer of its own; giving it back keeps nothing.
  const big = Buffer.alloc(600 * 1024, 1);
  const huge = audioMessage(big, 24000, null, false, buffers);
  t.equal(JSON.parse(huge).audio.length, 4 * Math.ceil(big.length / 3), 'a large message is whole');
  buffers.give(huge);
  t.not(audioMessage(big, 24000, null, false, buffers).buffer, huge.buffer, 'a large buffer is not pooled');
});
