// Word timings from the HTS engine: the label front end tells which label starts each spoken word
// (textToUtterances), the engine turns the generated state durations into chunk words (the espeak
// contract: audioMs from the chunk's start), and the WebSocket's alignment follows them with sawt-hts.
// The label checks run without the voice file; the rest skip without it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startServer } from '../helpers/server.js';
import { ready, wsConfig } from '../helpers/ws.js';
import { cloneFields, postForm, PREVIEW_TEXT, previewFields, referenceWav } from '../clone/helpers.js';
import { ENGINE, GOLDEN, VOICE_FILE } from './helpers.js';

const { textToLabels, textToUtterances, DEFAULT_LABEL_OPTIONS, FESTIVAL_LABEL_OPTIONS } = await import(ENGINE);
const { synthesizeHtsStream, htsParameters } = await import('@sawt/native');

const LONG = 'السَّلَامُ عَلَيْكُمْ وَرَحْمَةُ اللَّهِ وَبَرَكَاتُهُ. يُعَدُّ الْعِلْمُ مِفْتَاحَ التَّقَدُّمِ، وَالْقِرَاءَةُ غِذَاءُ الْعَقْلِ.';
const LONG_WORDS = LONG.replace(/[.،]/g, '').split(/\s+/);
const RATE = 24000;

const isPau = (label) => label.includes('/B:x-x-x@'); // pau rows have every B field x
// The first phone of a word: position 1 in its syllable (p6), its syllable first in the word (b4).
const startsWord = (label) => !isPau(label) && /@1_\d+\/A:.*\/B:\d+-\d+-\d+@1-/.test(label);
const slice = (text, w) => text.slice(w.textOffset, w.textOffset + w.length);

t.test('textToUtterances: the labels of textToLabels, with the label and the text of each spoken word', async (t) => {
  const texts = [
    LONG,
    '  قَالَ، ثُمَّ ذَهَبَ؟ نَعَمْ!\n\n"هَذَا" الْكِتَابُ (جَدِيدٌ) . - ذَهَبَ',
    'ذَهَبَ. ثُمَّ عَادَ؟ نَعَمْ',
  ];
  if (existsSync(GOLDEN)) for (const f of readdirSync(GOLDEN).filter((f) => f.endsWith('.norm')).sort()) texts.push(readFileSync(path.join(GOLDEN, f), 'utf8'));
  let words = 0;
  for (const text of texts) {
    for (const opts of [DEFAULT_LABEL_OPTIONS, FESTIVAL_LABEL_OPTIONS]) {
      const utts = textToUtterances(text, opts);
      t.same(utts.map((u) => u.labels), textToLabels(text, opts), 'the same labels as textToLabels');
      for (const u of utts) {
        const starts = u.labels.flatMap((l, i) => (startsWord(l) ? [i] : []));
        t.same(u.words.map((w) => w.label), starts, 'one word per word-initial phone, pauses are no words');
        for (const w of u.words) {
          const s = slice(text, w);
          t.ok(s.length > 0 && !/\s/.test(s) && !/^["'`.,:;!?(){}[\]]|["'`.,:;!?(){}[\]]$/.test(s), `word text "${s}"`);
        }
        words += u.words.length;
      }
    }
  }
  const long = textToUtterances(LONG);
  t.same(long.flatMap((u) => u.words.map((w) => slice(LONG, w))), LONG_WORDS, 'offsets into the given text, punctuation left out');
  const odd = '  قَالَ، ثُمَّ ذَهَبَ؟ نَعَمْ!\n\n"هَذَا" الْكِتَابُ (جَدِيدٌ) . - ذَهَبَ';
  t.same(textToUtterances(odd).flatMap((u) => u.words.map((w) => slice(odd, w))), ['قَالَ', 'ثُمَّ', 'ذَهَبَ', 'نَعَمْ', 'هَذَا', 'الْكِتَابُ', 'جَدِيدٌ', 'ذَهَبَ'],
    'Arabic punctuation, quotes and brackets are not part of a word; a token with no letters is no word');
  t.ok(words > 100, `${words} words checked`);
});

/** Synthesizes with words; resolves the audio and each word with its absolute time (ms). */
async function synthesizeWords(text, extra = {}) {
  const utts = textToUtterances(text);
  const stream = synthesizeHtsStream({ voicePath: VOICE_FILE, utterances: utts.map((u) => u.labels), words: utts.map((u) => u.words), sampleRate: RATE, ...extra });
  const words = [], chunks = [];
  let ms = 0;
  const bufs = [];
  for await (const { pcm, info } of stream) {
    const chunkMs = (info.samples / RATE) * 1000;
    for (const w of info.words) words.push({ ...w, segment: info.segment, chunkMs, absMs: ms + w.audioMs, text: slice(text, w) });
    if (info.samples) chunks.push({ segment: info.segment, ms: chunkMs, words: info.words.length });
    ms += chunkMs;
    bufs.push(pcm);
  }
  const buf = Buffer.concat(bufs);
  return { words, chunks, utts, pcm: new Int16Array(buf.buffer, buf.byteOffset, buf.length / 2), ms };
}
const rmsAt = (pcm, fromMs, toMs) => {
  let e = 0, n = 0;
  for (let i = Math.max(0, Math.round((fromMs * RATE) / 1000)); i < Math.min(pcm.length, Math.round((toMs * RATE) / 1000)); i++, n++) e += pcm[i] ** 2;
  return Math.sqrt(e / Math.max(1, n));
};

t.test('native: one word per spoken word across the chunks, in time order, inside the speech', async (t) => {
  const { words, chunks, pcm, ms } = await synthesizeWords(LONG);
  t.same(words.map((w) => w.text), LONG_WORDS, `${words.length} words, in order, with their text`);
  t.same([...new Set(words.map((w) => w.segment))], [0, 1], 'each sentence reports its own words');
  t.ok(chunks.length > 10, `${chunks.length} chunks`);
  for (const w of words) t.ok(w.audioMs >= 0 && w.audioMs <= w.chunkMs, `"${w.text}" within its chunk (${w.audioMs.toFixed(1)} of ${w.chunkMs.toFixed(1)} ms)`);
  for (let i = 1; i < words.length; i++) t.ok(words[i].absMs > words[i - 1].absMs + 50, `"${words[i].text}" after "${words[i - 1].text}": ${words[i].absMs.toFixed(0)} ms`);
  const first = words[0], last = words.at(-1);
  t.ok(first.absMs >= 20 && first.absMs < 400, `first word after the initial pause, near the start: ${first.absMs.toFixed(0)} ms`);
  t.ok(last.absMs < ms - 300, `last word (${last.absMs.toFixed(0)} ms) well before the end (${ms.toFixed(0)} ms)`);
  t.equal(Math.round(ms * RATE / 1000), pcm.length, 'chunk samples add up to the audio');
  // The second sentence's words come after the first sentence's audio.
  const firstSentenceMs = chunks.filter((c) => c.segment === 0).reduce((s, c) => s + c.ms, 0);
  t.ok(words.filter((w) => w.segment === 1).every((w) => w.absMs > firstSentenceMs), 'sentence 2 words after sentence 1 audio');
  // On the audio: quiet before the words that follow a pause, speech right after them.
  for (const w of [words[0], words.find((w) => w.text === 'يُعَدُّ'), words.find((w) => w.text === 'وَالْقِرَاءَةُ')]) {
    const before = rmsAt(pcm, w.absMs - 40, w.absMs - 5), after = rmsAt(pcm, w.absMs + 20, w.absMs + 150);
    t.ok(after > 8 * before, `"${w.text}" at ${w.absMs.toFixed(0)} ms: RMS ${before.toFixed(0)} before, ${after.toFixed(0)} after`);
  }
});

t.test('native: word times follow the generated durations (speed, whole-sentence chunks, parameters)', async (t) => {
  const base = await synthesizeWords(LONG);
  const fast = await synthesizeWords(LONG, { speed: 1.5 });
  t.equal(fast.words.length, base.words.length, 'same words at speed 1.5');
  const sum = (r) => r.words.reduce((s, w) => s + w.absMs, 0);
  const ratio = sum(base) / sum(fast), total = base.ms / fast.ms;
  t.ok(ratio > 1.3 && ratio < 1.7, `word times shrink ${ratio.toFixed(3)}× (audio ${total.toFixed(3)}×)`);
  // HTS speed spreads the change by each state's variance, so the words' ratio is near, not at, the audio's.
  t.ok(Math.abs(ratio - total) < 0.15, 'as the audio does');
  for (let i = 1; i < fast.words.length; i++) t.ok(fast.words[i].absMs > fast.words[i - 1].absMs, `fast: "${fast.words[i].text}" in order`);
  // Whole sentences as one chunk each: the same timeline.
  const whole = await synthesizeWords(LONG, { chunkMs: 0 });
  t.equal(whole.chunks.length, 2, 'one chunk per sentence');
  t.same(whole.chunks.map((c) => c.words), [5, 7], 'each carries its sentence\'s words');
  const drift = Math.max(...whole.words.map((w, i) => Math.abs(w.absMs - base.words[i].absMs)));
  t.ok(drift < 0.1, `the chunking does not move a word (at most ${drift.toFixed(3)} ms)`);
  // The label timeline against the audio's: frames silenced in given parameter streams (c0 very low)
  // are silent in the output where the frames say; the words use the same frame → sample mapping.
  const [p] = await htsParameters({ voicePath: VOICE_FILE, utterances: [base.utts[1].labels] });
  const mgc = p.mgc.slice();
  const [a, b] = [300, 340];
  for (let f = a; f < b; f++) mgc[f * 35] = -25;
  const stream = synthesizeHtsStream({ voicePath: VOICE_FILE, parameters: [{ ...p, mgc }], sampleRate: RATE });
  const bufs = [];
  for await (const x of stream) bufs.push(x.pcm);
  const buf = Buffer.concat(bufs), pcm = new Int16Array(buf.buffer, buf.byteOffset, buf.length / 2);
  const mid = Math.round(((a + b) / 2) * p.framePeriodMs * RATE / 1000);
  let s0 = mid, s1 = mid;
  while (s0 > 0 && Math.abs(pcm[s0 - 1]) <= 2) s0--;
  while (s1 < pcm.length && Math.abs(pcm[s1]) <= 2) s1++;
  const [ms0, ms1] = [(s0 * 1000) / RATE - a * p.framePeriodMs, (s1 * 1000) / RATE - b * p.framePeriodMs];
  // Measured: +8.7 ms and +4.6 ms (the vocoder moves the mel-cepstrum to a frame's value during that frame).
  t.ok(ms0 >= 0 && ms0 < 15 && ms1 >= 0 && ms1 < 7, `silenced frames ${a}–${b} are silent from ${ms0.toFixed(1)} to ${ms1.toFixed(1)} ms past their frame times`);
});

t.test('native: words are checked', async (t) => {
  const utts = textToUtterances(LONG);
  const utterances = utts.map((u) => u.labels);
  const words = utts.map((u) => u.words);
  const start = (extra) => synthesizeHtsStream({ voicePath: VOICE_FILE, utterances, sampleRate: RATE, ...extra });
  const n0 = utterances[0].length;
  t.throws(() => start({ words: [words[0]] }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: 'Expected an array of 2 word lists (one per utterance) for words but received an array of 1' });
  t.throws(() => start({ words: 'x' }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: 'Expected an array of 2 word lists (one per utterance) for words but received a string' });
  t.throws(() => start({ words: [words[0], null] }), { message: 'Expected an array of {label, textOffset, length} for words[1] but received null' });
  t.throws(() => start({ words: [[...words[0], 3], words[1]] }), { message: 'Expected an object {label, textOffset, length} for words[0][5] but received 3' });
  t.throws(() => start({ words: [[{ ...words[0][0], label: n0 }], words[1]] }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: `Expected an integer between 0 and ${n0 - 1} for words[0][0].label but received ${n0}` });
  t.throws(() => start({ words: [[words[0][1], words[0][0]], words[1]] }), { message: `Expected an integer between ${words[0][1].label + 1} and ${n0 - 1} for words[0][1].label but received ${words[0][0].label}` });
  t.throws(() => start({ words: [[{ label: n0 - 1, textOffset: 0, length: 1 }, { label: n0 - 1, textOffset: 0, length: 1 }], words[1]] }), { message: `Expected at most 1 words for words[0] (words[0][0] starts at the last of the ${n0} labels of utterances[0]) but received 2` });
  t.throws(() => start({ words: [[{ ...words[0][0], textOffset: -1 }], words[1]] }), { message: /for words\[0\]\[0\]\.textOffset but received -1$/ });
  t.throws(() => start({ words: [[{ label: 1, textOffset: 0 }], words[1]] }), { message: /for words\[0\]\[0\]\.length but received undefined$/ });
  const [p] = await htsParameters({ voicePath: VOICE_FILE, utterances: [utterances[0]] });
  t.throws(() => synthesizeHtsStream({ voicePath: VOICE_FILE, parameters: [p], words: [words[0]], sampleRate: RATE }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: /^Expected no words with parameters/ });
  // Without words (or with empty lists) the chunks carry none, as before.
  const none = [];
  const s = start({ words: [[], []] });
  for await (const { info } of s) none.push(...info.words);
  t.same(none, [], 'empty word lists: no words');
});

/** Audio messages of one flush of `text` over the WebSocket; checks its alignment. */
async function wsAlignment(t, srv, key, voiceId, text) {
  const c = await ready(srv, key, { voice_id: voiceId, model_id: 'sawt-hts' });
  c.send({ type: 'text', text, flush: true });
  await c.until(() => c.audio().find((m) => m.isFinal) || c.errors().length);
  t.same(c.errors(), [], 'no errors');
  const audio = c.audio();
  const chars = audio.flatMap((m) => m.alignment?.chars ?? []);
  const starts = audio.flatMap((m) => m.alignment?.charStartTimesMs ?? []);
  const durations = audio.flatMap((m) => m.alignment?.charDurationsMs ?? []);
  const audioMs = (c.pcmBytes() / 2 / audio[0].sampleRate) * 1000;
  t.ok(audio.filter((m) => m.alignment).length >= 2, `${audio.filter((m) => m.alignment).length} of ${audio.length} audio messages carry alignment`);
  // Each message holds whole words, a space between two of its own words (none before its first).
  const spelled = audio.flatMap((m) => (m.alignment ? m.alignment.chars.join('').split(' ') : []));
  t.same(spelled, text.trim().split(/\s+/), `the chars spell the ${spelled.length} sent words in order`);
  t.equal(starts.length, chars.length);
  t.equal(durations.length, chars.length);
  t.ok(starts.every((v, i) => i === 0 || v >= starts[i - 1]), 'charStartTimesMs never decrease');
  t.ok(starts[0] > 0 && starts.at(-1) < audioMs, `from ${starts[0]} to ${starts.at(-1)} ms, within the ${audioMs.toFixed(0)} ms of audio`);
  c.send({ type: 'closeConnection' });
  await c.closed;
  return { starts, audioMs };
}

t.test('sawt-hts over the WebSocket: alignment from the engine\'s word timings', async (t) => {
  const srv = await startServer(t, { config: wsConfig() });
  const owner = await srv.client({ balance: '10' });
  const text = 'مرحبا بكم في خدمة صوت للنطق العربي. نقدم لكم صوتا بشريا واضحا.';
  await wsAlignment(t, srv, owner.key.key, 'fusha-ziad', text);
  await wsAlignment(t, srv, owner.key.key, 'fusha-sami', 'السلام عليكم ورحمة الله وبركاته.');
});

t.test('a voice cloned with sawt-hts keeps the word timings (the same HTS back end, moved voice parameters)', async (t) => {
  const srv = await startServer(t, { config: wsConfig() });
  const owner = await srv.client({ plan: 'enterprise', balance: '100' });
  const ref = await referenceWav(srv, owner.headers, 'egyptian-nour');
  const preview = await postForm(srv, '/voices/preview', owner.key.key, previewFields({ model_id: 'sawt-hts', similarity: '1' }), { file: ref });
  t.equal(preview.status, 200, 'preview');
  const clone = await postForm(srv, '/voices/clone', owner.key.key, cloneFields({ model: 'sawt-hts', text: PREVIEW_TEXT }), { voice_file: preview.body, reference_audio_file: ref });
  t.equal(clone.status, 200, JSON.stringify(clone.json));
  await wsAlignment(t, srv, owner.key.key, clone.json.voice_id, 'مرحبا بكم في خدمة صوت للنطق العربي. نقدم لكم صوتا بشريا واضحا.');
});
