// Piper's chunks (piperChunks in a speech stream) on the tiny stand-in: the first audio of a long text comes before its last sentence
// is synthesized; a consumer that stops reading stops synthesis; destroying the stream stops the
// ONNX work; word timings are spread over each sentence.
import { join } from 'node:path';
import t from 'tap';
import { STANDIN } from './helpers.js';

const { piperChunks, piperSentences, readPiperVoiceConfig, wordsBySentence } = await import('../../plugins/engine/dist/index.js');
const { PiperSession } = await import('@sawt/native');
const { speechStream } = await import('@sawt/core');

const onnx = join(STANDIN, 'ar_JO-standin-tiny.onnx');
const config = readPiperVoiceConfig(`${onnx}.json`);
const session = await PiperSession.create(onnx, { intraOpThreads: 1 });
t.teardown(() => session.release());

const SENTENCES = Array.from({ length: 12 }, (_, i) => `ذَهَبَ الطَّالِبُ رَقْمُ ${['وَاحِدٍ', 'اثْنَيْنِ', 'ثَلَاثَةٍ'][i % 3]} إِلَى الْمَدْرَسَةِ صَبَاحًا.`);
// `ended` settles once the producer (Piper's generator) has returned: after it, no run can start.
const stream = (texts = SENTENCES, chunkMs = 200) => {
  let producerEnded;
  const ended = new Promise((resolve) => (producerEnded = resolve));
  const s = speechStream(async function* (signal) {
    try {
      yield* piperChunks({
        session, config,
        pieces: texts.map((text) => ({ text, cut: false, sentences: piperSentences(text, 'ar', config.phonemeMap) })),
        scales: { noiseScale: 0.667, lengthScale: 1, noiseW: 0.8 }, sid: 0, sampleRate: 24000, chunkMs,
        sentenceSilenceMs: 200, onMissing: () => {}, signal,
      });
    } finally {
      producerEnded();
    }
  });
  return Object.assign(s, { ended });
};
/** Resolves once `s` has generated its n-th chunk (and pushed it: observers run just before the push). */
const generated = (s, n) => new Promise((resolve) => {
  let count = 0;
  s.observe(() => ++count === n && resolve());
});

t.test('the first audio of a long text arrives before its last sentence is synthesized', async (t) => {
  const before = session.stats().finished;
  const s = stream();
  const first = await new Promise((resolve) => s.once('data', resolve));
  t.ok(first.pcm.length > 0);
  const done = session.stats().finished - before;
  t.ok(done < SENTENCES.length, `${done} of ${SENTENCES.length} sentences synthesized at the first chunk`);
  // Each chunk carries its info: the first sentence's are no longer missed (they were events
  // emitted before a listener could be added, hence "length - 1" here before).
  const chunks = [first];
  for await (const c of s) chunks.push(c);
  const infos = chunks.map((c) => c.info);
  t.ok(chunks.every((c) => c.sampleRate === 24000), 'every chunk carries its rate');
  t.same(chunks.map((c) => c.isLast).lastIndexOf(true), chunks.length - 1, 'the last chunk says so');
  t.equal(chunks.filter((c) => c.isLast).length, 1, 'and only the last');
  t.equal(session.stats().finished - before, SENTENCES.length, 'every sentence once');
  t.ok(infos.at(-1).segmentEnd);
  t.same([...new Set(infos.filter((i) => i.segmentEnd).map((i) => i.segment))].length, SENTENCES.length, 'segmentEnd per sentence');
});

t.test('a consumer that stops reading stops synthesis (backpressure); destroy stops the ONNX work', async (t) => {
  const before = session.stats();
  // One chunk per sentence: the first is read (then reading stops), the second fills the buffer.
  const s = stream(SENTENCES.concat(SENTENCES), 0);
  const [two, three] = [generated(s, 2), generated(s, 3)];
  s.once('data', () => s.pause());
  await two;
  // A full buffer is the producer paused: the stream asks for no chunk until one is read.
  t.equal(s.readableLength, s.readableHighWaterMark, 'the unread chunk fills the buffer');
  t.equal(session.stats().pending, 0, 'no run queued or running while nobody reads');
  t.equal(session.stats().started - before.started, 2, 'only the sentences read or buffered were run');
  // Reading one chunk lets exactly one more sentence run.
  t.ok(s.read(), 'the buffered chunk');
  await three;
  t.equal(session.stats().started - before.started, 3, 'one read, one more sentence');
  t.equal(session.stats().pending, 0);
  s.destroy();
  await s.ended;
  const after = session.stats();
  t.equal(after.pending, 0, 'nothing queued or running');
  t.equal(after.started - before.started, 3, 'the producer returned without another run');
});

t.test('a destroy while a sentence runs terminates that run', async (t) => {
  const long = [SENTENCES.join(' ').replace(/\./g, '،')];
  const before = session.stats();
  const s = stream(long);
  s.resume();
  while (session.stats().started === before.started) await new Promise((r) => setTimeout(r, 1));
  s.destroy();
  await s.ended;
  const after = session.stats();
  t.equal(after.pending, 0);
  t.equal(after.terminated - before.terminated, 1, 'the run in flight was terminated, not finished');
});

t.test('words are shared out over the sentences of a piece and spread by length', async (t) => {
  const text = 'أَهْلًا. كَيْفَ حَالُكَ الْيَوْمَ؟';
  const sentences = await piperSentences(text, 'ar', config.phonemeMap);
  t.equal(sentences.length, 2);
  const words = wordsBySentence(text, sentences);
  t.same(words.map((w) => w.length), [1, 3]);
  t.equal(text.slice(words[1][0].textOffset, words[1][0].textOffset + words[1][0].length), 'كَيْفَ');
  const infos = [];
  const s = stream(['كَيْفَ حَالُكَ الْيَوْمَ يَا صَدِيقِي الْعَزِيزَ؟'], 100);
  for await (const { info } of s) infos.push(info);
  const timed = [];
  let at = 0;
  for (const i of infos) {
    for (const w of i.words) timed.push(at + w.audioMs);
    at += (i.samples / 24000) * 1000;
  }
  t.equal(timed.length, 6, 'every word once');
  t.same([...timed].sort((a, b) => a - b), timed, 'in order');
  t.ok(timed[0] === 0 && timed.at(-1) < at, 'within the audio');
});
