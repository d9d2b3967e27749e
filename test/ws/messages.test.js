// Audio messages are written out by hand (not through JSON.stringify, which copied and scanned the
// ~13 kB of base64 once more): they must be exactly the JSON text JSON.stringify gives for the same
// message, Arabic alignment and characters that need escaping included.
import t from 'tap';
import { audioMessage } from '@sawt/plugin-transport-ws';

const pcm = Buffer.from(Int16Array.from({ length: 1201 }, (_, i) => Math.round(8000 * Math.sin(i / 7))).buffer);
const alignment = { chars: ['س', 'ل', 'ا', 'م', ' ', '"', '\\'], charStartTimesMs: [0, 40, 80, 120, 160, 170, 180], charDurationsMs: [40, 40, 40, 40, 10, 10, 10] };

t.test('an audio message is the JSON text of the same message', async (t) => {
  for (const [a, isFinal] of [[alignment, false], [null, true], [alignment, true], [null, false]]) {
    const msg = audioMessage(pcm, 24000, a, isFinal);
    const expected = JSON.stringify({ audio: pcm.toString('base64'), sampleRate: 24000, ...(a && { alignment: a }), ...(isFinal && { isFinal: true }) });
    t.equal(msg, expected, `same text (alignment ${a ? 'yes' : 'no'}, isFinal ${isFinal})`);
    const back = JSON.parse(msg);
    t.same(Buffer.from(back.audio, 'base64'), pcm, 'the audio decodes to the same PCM');
  }
});

t.test('an empty chunk gives an empty audio string', async (t) => {
  t.same(JSON.parse(audioMessage(Buffer.alloc(0), 16000, null, true)), { audio: '', sampleRate: 16000, isFinal: true });
});
