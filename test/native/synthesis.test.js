import t from 'tap';
import { BASE, LONG_SENTENCE, SENTENCE, collect, medianPitch, rms } from './helpers.js';

const { ESPEAK_RATE_RANGE, listVoices, nativeAddon, phonemize, synthesizeStream } = await import('@sawt/native');

t.test('phonemize gives IPA with Arabic phonemes', async (t) => {
  const ipa = await phonemize('مُحَمَّدٌ عَرَبِيٌّ', 'ar');
  t.match(ipa, /ħ/, 'ح becomes ħ');
  t.match(ipa, /ʕ/, 'ع becomes ʕ');
  t.equal(await phonemize('مَرْحَباً. كَيْفَ حالُكُم؟', 'ar'), 'mˈarħabˌaː kaˌifa ħaːlˈukum', 'clauses joined by a space');
});

t.test('phonemize with an unknown voice rejects with SAWT_ENGINE_ESPEAK from the caller', async (t) => {
  const error = await phonemize('نص', 'no-such-voice').catch((e) => e);
  t.equal(error.code, 'SAWT_ENGINE_ESPEAK');
  t.match(error.message, /no-such-voice/);
  t.match(error.stack, /synthesis\.test\.js/, 'stack points at the test, not at the addon');
});

t.test('listVoices includes Arabic', async (t) => {
  const arabic = listVoices().find((v) => v.languages.includes('ar'));
  t.ok(arabic, 'an Arabic voice');
  t.type(arabic.identifier, 'string');
});

t.test('an Arabic sentence gives audible PCM that grows with the text', async (t) => {
  const short = await collect(synthesizeStream({ ...BASE, segments: [SENTENCE] }));
  const long = await collect(synthesizeStream({ ...BASE, segments: [LONG_SENTENCE] }));
  t.ok(rms(short.samples) > 500, `RMS ${rms(short.samples).toFixed(0)} is well above silence`);
  t.ok(long.samples.length > short.samples.length * 1.5, 'longer text, longer audio');
  const last = short.infos.at(-1);
  t.equal(last.segmentEnd, true, 'the stream ends with the chunk that closes the last segment');
  t.equal(short.infos.filter((i) => !i.final).reduce((n, i) => n + i.samples, 0), short.samples.length);
});

t.test('24000 Hz output is 24000/22050 as long as 22050 Hz output', async (t) => {
  const at22 = await collect(synthesizeStream({ ...BASE, segments: [LONG_SENTENCE], sampleRate: 22050 }));
  const at24 = await collect(synthesizeStream({ ...BASE, segments: [LONG_SENTENCE], sampleRate: 24000 }));
  const ratio = at24.samples.length / at22.samples.length;
  // espeak's pitch jitter changes the length of identical calls by about ±1%.
  t.ok(Math.abs(ratio - 24000 / 22050) < 0.03, `ratio ${ratio.toFixed(4)}`);
});

t.test('doubling the rate roughly halves the duration', async (t) => {
  const slow = await collect(synthesizeStream({ ...BASE, rate: 120, segments: [SENTENCE, SENTENCE] }));
  const fast = await collect(synthesizeStream({ ...BASE, rate: 240, segments: [SENTENCE, SENTENCE] }));
  const ratio = slow.samples.length / fast.samples.length;
  t.ok(ratio > 1.6 && ratio < 2.5, `duration ratio ${ratio.toFixed(2)}`);
});

t.test('pitch and voice variants sound different', async (t) => {
  const pitchOf = async (options) =>
    medianPitch((await collect(synthesizeStream({ ...BASE, segments: [SENTENCE], sampleRate: 22050, ...options }))).samples, 22050);
  const low = await pitchOf({ pitch: 10 });
  const high = await pitchOf({ pitch: 90 });
  const female = await pitchOf({ voice: 'ar+f2' });
  const male = await pitchOf({});
  t.ok(high > low * 1.4, `pitch 90: ${high.toFixed(0)} Hz vs pitch 10: ${low.toFixed(0)} Hz`);
  t.ok(female > male * 1.4, `ar+f2: ${female.toFixed(0)} Hz vs ar: ${male.toFixed(0)} Hz`);
});

t.test('word timings point at the words of the segment', async (t) => {
  const { infos } = await collect(synthesizeStream({ ...BASE, segments: [SENTENCE] }));
  const words = infos.flatMap((i) => i.words);
  const expected = SENTENCE.replace(/[.،]/g, '').split(' ');
  t.same(words.map((w) => SENTENCE.slice(w.textOffset, w.textOffset + w.length).replace(/[.،]/g, '')), expected);
  t.equal(words[0].audioMs, 0, 'the first word starts the audio');
});

t.test('chunkMs cuts each segment into chunks of that length', async (t) => {
  const { infos } = await collect(synthesizeStream({ ...BASE, segments: [LONG_SENTENCE, SENTENCE], chunkMs: 100 }));
  const chunks = infos.filter((i) => !i.final);
  t.ok(chunks.length > 20, `${chunks.length} chunks`);
  t.ok(chunks.filter((i) => !i.segmentEnd).every((i) => i.samples === 2400), '100 ms at 24000 Hz');
  t.same(chunks.filter((i) => i.segmentEnd).map((i) => i.segment), [0, 1], 'one closing chunk per segment');
  const words = chunks.flatMap((i) => i.words);
  t.ok(words.every((w) => w.audioMs >= 0 && w.audioMs < 100), 'audioMs is relative to its chunk');
});

t.test('phonemeInput synthesizes [[...]] mnemonics', async (t) => {
  const { samples } = await collect(synthesizeStream({ ...BASE, segments: ["[[m'arhaba]]"], phonemeInput: true }));
  t.ok(rms(samples) > 500, 'audible');
});

t.test('an unknown voice destroys the stream with SAWT_ENGINE_ESPEAK', async (t) => {
  const error = await collect(synthesizeStream({ ...BASE, voice: 'xx-none', segments: [SENTENCE] })).catch((e) => e);
  t.equal(error.code, 'SAWT_ENGINE_ESPEAK');
  t.equal(error.name, 'EngineError');
});

t.test("espeak's rate range is the addon's: the wrapper accepts the rates the engine speaks at, and both ends speed up", async (t) => {
  t.same(nativeAddon().espeakRateRange, ESPEAK_RATE_RANGE);
  const [slow, fast] = await Promise.all([ESPEAK_RATE_RANGE.min, ESPEAK_RATE_RANGE.max].map((rate) => collect(synthesizeStream({ ...BASE, segments: [SENTENCE], rate }))));
  t.ok(fast.samples.length < slow.samples.length / 2, `the fastest rate is far shorter (${fast.samples.length} vs ${slow.samples.length} samples)`);
  t.throws(() => synthesizeStream({ ...BASE, segments: [SENTENCE], rate: ESPEAK_RATE_RANGE.max + 1 }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: /for rate/ });
});

t.test('options are validated before the native call', async (t) => {
  const attempt = (options) => () => synthesizeStream({ ...BASE, segments: [SENTENCE], ...options });
  const invalid = { code: 'SAWT_ENGINE_INVALID_ARGUMENT' };
  t.throws(attempt({ sampleRate: 44100 }), { ...invalid, message: 'Expected one of 8000, 16000, 22050, 24000 for sampleRate but received 44100' });
  t.throws(attempt({ rate: 500 }), { ...invalid, message: 'Expected an integer between 80 and 450 for rate but received 500' });
  t.throws(attempt({ pitch: '50' }), { ...invalid, message: /for pitch but received '50' of type string/ });
  t.throws(attempt({ segments: [] }), { ...invalid, message: /Expected a non-empty array of strings for segments but received \[\]/ });
  t.throws(attempt({ segments: ['a', 3] }), invalid);
  t.throws(attempt({ voice: '' }), invalid);
  t.throws(attempt({ chunkMs: -1 }), invalid);
  t.throws(attempt({ phonemeInput: 'yes' }), invalid);
});
