// How a piece's audio becomes messages: the first message is the first chunk alone (sent as soon as
// a second chunk shows it is not the last); after it, the chunks read together go out together, at
// most a second of audio a message; the last message of a flush carries isFinal; the audio and the
// alignment are those of the chunks, in order; the admission is settled once, after the last message.
import { Readable } from 'node:stream';
import t from 'tap';
import { PieceRun } from '../../plugins/transport-ws/dist/piece.js';

const RATE = 24000;
const CHUNK_SAMPLES = 4800; // 200 ms

/** A chunk of 200 ms whose samples all hold `n` (the order can be read back from the audio). */
function chunk(n, words = []) {
  const pcm = Buffer.from(new Int16Array(CHUNK_SAMPLES).fill(n).buffer);
  return { pcm, info: { segment: 0, segmentEnd: false, samples: CHUNK_SAMPLES, words } };
}

/** A piece's run over a stream that holds `chunks` all at once, as a synthesis far ahead of its reader gives them. */
async function runPiece(chunks, { text = 'a b', flushEnd = true } = {}) {
  const stream = new Readable({ objectMode: true, highWaterMark: 1024, read() {} });
  for (const c of chunks) stream.push(c);
  stream.push(null);
  const messages = [];
  const admission = {
    settled: 0, released: 0, slotFreed: 0,
    settle: async () => void admission.settled++, release: async () => void admission.released++, freeSlot: async () => void admission.slotFreed++,
    settleCut: async () => void admission.released++,
  };
  const out = {
    send: async (m) => (messages.push(JSON.parse(m)), true),
    sendError: async () => true,
    drained: async () => {},
    closed: () => false,
    notReading: () => {},
  };
  const run = new PieceRun({ text, flushEnd, queuedAt: performance.now() }, out);
  await run.run(async () => ({ stream, admission }), RATE);
  return { messages, admission };
}

const samplesOf = (m) => {
  const b = Buffer.from(m.audio, 'base64');
  return new Int16Array(b.buffer, b.byteOffset, b.byteLength / 2);
};

t.test('the first chunk goes alone, then up to a second of audio a message, in order, isFinal last', async (t) => {
  const chunks = Array.from({ length: 12 }, (_, i) => chunk(i + 1, i === 0 ? [{ textOffset: 0, length: 1, audioMs: 0 }] : i === 7 ? [{ textOffset: 2, length: 1, audioMs: 50 }] : []));
  const { messages, admission } = await runPiece(chunks);
  const sizes = messages.map((m) => samplesOf(m).length / CHUNK_SAMPLES);
  t.same(sizes[0], 1, 'the first message is the first chunk alone');
  t.ok(sizes.slice(1).every((n) => n >= 1 && n <= 5), `later messages carry 1 to 5 chunks (a second at most): ${sizes.join(', ')}`);
  t.ok(messages.length < chunks.length, `fewer messages (${messages.length}) than chunks (${chunks.length})`);
  const all = messages.flatMap((m) => [...samplesOf(m)]);
  t.equal(all.length, 12 * CHUNK_SAMPLES, 'every sample is sent');
  const order = all.filter((_, i) => i % CHUNK_SAMPLES === 0);
  t.same(order, Array.from({ length: 12 }, (_, i) => i + 1), 'chunks in order');
  t.same(messages.map((m) => m.isFinal === true), messages.map((_, i) => i === messages.length - 1), 'isFinal on the last message only');
  t.ok(messages.every((m) => m.sampleRate === RATE));
  const chars = messages.flatMap((m) => m.alignment?.chars ?? []);
  t.same(chars, ['a', ' ', 'b'], 'the alignment of the text, each character once');
  t.equal(admission.settled, 1, 'settled once');
  t.equal(admission.released, 0);
});

t.test('a single chunk is the one message, with isFinal; a piece that does not end the flush has none', async (t) => {
  const one = await runPiece([chunk(7)]);
  t.equal(one.messages.length, 1);
  t.equal(one.messages[0].isFinal, true);
  const notLast = await runPiece([chunk(1), chunk(2), chunk(3)], { flushEnd: false });
  t.notOk(notLast.messages.some((m) => m.isFinal), 'no isFinal');
  t.equal(notLast.messages.flatMap((m) => [...samplesOf(m)]).length, 3 * CHUNK_SAMPLES);
});
