// node bench/hts-ab.js: A/B of the HTS voice's label options, vocoding windows and voice parameters,
// straight on the addon (no server). Per variant: DNSMOS P.835 (sig_bak_ovr.onnx), peak / RMS / crest
// factor and the share of samples past the limiter's knee, the vocoding cost (RTF), the audio
// duration and the pauses an energy detector finds in it (silent runs ≥ 50 / ≥ 100 ms inside a
// sentence); at speed 1 also, from the labels, the phone durations of the engine's duration model
// (each label generated on its own, which adds up exactly to the utterance: checked): the pau a
// phrase break adds inside an utterance, the utterance-edge pau, the vowel of الله and of اللهم,
// the hamza `ah` phones, speech time and phones per second.
// Sentences: BENCH_AB_SENTENCES (a file, one diacritized sentence a line; default
// test/frontend/diacritization-sentences.txt; bench/hts-features-sentences.txt has الله, اللهم,
// ، ؛ ؟ and hamzat al-wasl), normalized by the front end's normalize stage: BENCH_DNSMOS_SENTENCES
// (default 20) of them from BENCH_AB_FROM (default 0; 20 gives a held-out set).
// BENCH_AB_VARIANTS=name,name… runs a subset (default: all the label/window variants). Voice
// variants use the default labels and windows with the controls HtsBackend gives a voice at request
// speed 1 and stability 0.5: `voice/fusha-ziad`, `voice/fusha-sami` (their `hts` blocks in
// config/default.json) and `voice/ht<halfTone>-s<f0Spread>-a<alpha>[-v<speed>]`, e.g.
// voice/ht4-s1.1-a0.52-v1.05; they also report the median F0 and the p5–p95 F0 range (semitones).
// BENCH_AB_DIFF=1 first prints, per label option, the first sentence it changes (phones with
// Festival's labels and with the option, and the two labels at the first changed phone).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { here, round, writeResults } from './harness.js';
import { createDnsmos, DNSMOS_PATH } from './dnsmos.js';

const { textToLabels, normalizeText, FESTIVAL_LABEL_OPTIONS, DEFAULT_LABEL_OPTIONS } = await import('../plugins/engine/dist/index.js');
const { synthesizeHtsStream, htsParameters } = await import('@sawt/native');
const shared = path.resolve(here, '../../shared/models');
const voicePath = path.join(shared, 'hts/ara_norm_ziad/ara_norm_ziad_hts.htsvoice');
if (!existsSync(voicePath) || !existsSync(DNSMOS_PATH)) {
  console.error('bench/hts-ab: needs the HTS voice and DNSMOS under ../shared/models');
  process.exit(1);
}
const SENTENCES = Number(process.env.BENCH_DNSMOS_SENTENCES ?? 20);
const FROM = Number(process.env.BENCH_AB_FROM ?? 0); // first sentence (0-based), e.g. 20 for a held-out set
const sentenceFile = path.resolve(process.env.BENCH_AB_SENTENCES ?? path.join(here, '../test/frontend/diacritization-sentences.txt'));
const sentences = readFileSync(sentenceFile, 'utf8')
  .split('\n').map((s) => s.trim()).filter(Boolean).slice(FROM, FROM + SENTENCES).map((s) => normalizeText(s));

const WHOLE = { firstWindowFrames: 100000, windowFrames: 100000 };
const WINDOWED = { firstWindowFrames: 60, windowFrames: 200 };
const F = FESTIVAL_LABEL_OPTIONS, D = DEFAULT_LABEL_OPTIONS;
const ALL = [
  ['festival/whole', F, WHOLE],
  ['festival/windowed', F, WINDOWED],
  ['+waslElision/whole', { ...F, waslElision: true }, WHOLE],
  ['+allahLongVowel/whole', { ...F, allahLongVowel: true }, WHOLE],
  ['+arabicPunctuation/whole', { ...F, arabicPunctuation: true }, WHOLE],
  ['default/whole', D, WHOLE],
  ['default/windowed-60-200', D, WINDOWED],
  ['default/windowed-100-200', D, { firstWindowFrames: 100, windowFrames: 200 }],
  ['default/windowed-60-400', D, { firstWindowFrames: 60, windowFrames: 400 }],
  ['default/windowed-60-grow-600', D, {}],
  ['default/windowed-100-grow-600', D, { firstWindowFrames: 100 }],
  ['default/windowed-80-grow-600', D, { firstWindowFrames: 80 }],
  ['default/windowed-60-whole', D, { firstWindowFrames: 60, windowFrames: 100000 }],
  ['default/whole/gain-0dB', D, { ...WHOLE, gainDb: 0 }],
  ['default/whole/gain-12dB', D, { ...WHOLE, gainDb: -12 }],
];

// Voice variants: the controls HtsBackend.synthesize gives the addon for a voice's `hts` block at
// request speed 1 and stability 0.5 (lively 0: f0Spread as configured, gvWeightLf0 1), default windows.
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
const voiceControls = (p) => ({
  speed: clamp(p.speed ?? 1, 0.25, 4),
  halfTone: p.halfTone ?? 0,
  f0Spread: clamp(p.f0Spread ?? 1, 0, 4),
  ...(p.alpha !== undefined && { alpha: p.alpha }),
  gvWeightLf0: 1,
});
function configVoice(id) {
  const config = JSON.parse(readFileSync(path.join(here, '../config/default.json'), 'utf8'));
  const engine = config.plugins.find((p) => p.resolve === '@sawt/plugin-engine');
  const voice = engine?.options?.voices?.find((v) => v.voice_id === id);
  if (!voice?.hts) throw new Error(`bench/hts-ab: no voice ${id} with an hts block in config/default.json`);
  return voice.hts;
}
function voiceVariant(name) {
  const m = name.match(/^voice\/(?:(fusha-[a-z]+)|ht(-?[\d.]+)-s([\d.]+)-a([\d.]+)(?:-v([\d.]+))?)$/);
  if (!m) return null;
  const hts = m[1] ? configVoice(m[1]) : { halfTone: Number(m[2]), f0Spread: Number(m[3]), alpha: Number(m[4]), speed: Number(m[5] ?? 1) };
  return [name, D, voiceControls(hts), hts];
}

const pick = process.env.BENCH_AB_VARIANTS?.split(',').map((s) => s.trim()).filter(Boolean);
const variants = pick
  ? pick.map((n) => ALL.find(([a]) => a === n) ?? voiceVariant(n) ?? (() => { throw new Error(`bench/hts-ab: unknown variant ${n}`); })())
  : ALL;

function synth(utterances, extra) {
  return new Promise((resolve, reject) => {
    const parts = [];
    const t0 = performance.now();
    const s = synthesizeHtsStream({ voicePath, utterances, sampleRate: 24000, chunkMs: 0, threads: 1, ...extra });
    s.on('data', (c) => parts.push(c.pcm));
    s.on('error', reject);
    s.on('end', () => resolve({ pcm: Buffer.concat(parts), ms: performance.now() - t0 }));
  });
}

const score = await createDnsmos(24000);

// Energy-based pause detector on the 24 kHz output: 10 ms frames, silent below -50 dBFS RMS (the
// pau frames the engine vocodes sit at -70…-100 dBFS, speech and stop closures above -45); runs of
// ≥ 50 ms between the first and the last sounding frame are pauses (the voice's phrase-break pau is
// often shorter than 100 ms, so both counts are reported).
const FRAME = 240, SILENT_DB = -50, MIN_PAUSE_FRAMES = 5;
function audioPauses(x) {
  const silent = [];
  for (let f = 0; f + FRAME <= x.length; f += FRAME) {
    let sq = 0;
    for (let k = f; k < f + FRAME; k++) sq += x[k] * x[k];
    silent.push(10 * Math.log10(sq / FRAME / 32768 ** 2 + 1e-12) < SILENT_DB);
  }
  const first = silent.indexOf(false), last = silent.lastIndexOf(false);
  const pauses = [];
  for (let f = first, run = 0; f <= last + 1; f++) {
    if (f <= last && silent[f]) run++;
    else { if (run >= MIN_PAUSE_FRAMES) pauses.push(run * 10); run = 0; }
  }
  return pauses;
}

// Phone durations (ms) of one utterance's labels: each label generated as an utterance of its own
// (HTS rounds each state's duration independently at speed 1, so they add up to the whole: checked).
const phoneName = (l) => l.match(/^.*?\^.*?-(.*?)\+/)[1];
async function phoneDurations(labels) {
  const single = await htsParameters({ voicePath, utterances: labels.map((l) => [l]), threads: 1 });
  return single.map((p) => p.frames * p.framePeriodMs);
}
let durationsChecked = false;
async function checkDurations(labels) {
  const whole = (await htsParameters({ voicePath, utterances: [labels], threads: 1 }))[0];
  const sum = (await phoneDurations(labels)).reduce((a, b) => a + b, 0);
  if (Math.abs(whole.frames * whole.framePeriodMs - sum) > 1e-6) throw new Error(`bench/hts-ab: per-label durations (${sum} ms) do not add up to the utterance (${whole.frames * whole.framePeriodMs} ms)`);
  durationsChecked = true;
}

/** Label-side durations of one sentence's utterances. */
async function labelStats(utterances, acc) {
  for (const labels of utterances) {
    if (!durationsChecked) await checkDurations(labels);
    const ms = await phoneDurations(labels);
    const names = labels.map(phoneName);
    acc.utterances++;
    names.forEach((p, i) => {
      if (p === 'pau') {
        if (i === 0 || i === names.length - 1) acc.edgePau.push(ms[i]);
        else acc.innerPau.push(ms[i]);
        return;
      }
      acc.speechMs += ms[i];
      acc.phones++;
      if (p === 'ah') acc.ah.push(ms[i]);
      // The vowel of الله / اللهم: ll V h.
      if (names[i - 1] === 'll' && names[i + 1] === 'h' && (p === 'a' || p === 'aa')) {
        const allahumma = names[i + 2] === 'u' && names[i + 3] === 'mm';
        (allahumma ? acc.allahumma : acc.allah).push({ p, ms: ms[i] });
      } else if (p === 'aa') acc.aaElsewhere.push(ms[i]);
      else if (p === 'a') acc.aElsewhere.push(ms[i]);
    });
  }
}
const mean = (a) => (a.length ? round(a.reduce((x, y) => x + y, 0) / a.length, 1) : null);
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.floor(s.length / 2)] : NaN; };

/** Median F0 (Hz) and the p5–p95 range (semitones) of the generated log F0 with the variant's F0 controls. */
async function f0Stats(controls) {
  const lf0 = [];
  for (const s of sentences) {
    for (const p of await htsParameters({ voicePath, utterances: textToLabels(s, D), threads: 1, ...controls })) {
      for (const v of p.lf0) if (!Number.isNaN(v)) lf0.push(v);
    }
  }
  lf0.sort((a, b) => a - b);
  const q = (p) => lf0[Math.min(lf0.length - 1, Math.floor(p * lf0.length))];
  return { f0MedianHz: round(Math.exp(q(0.5)), 1), f0RangeSt: round((12 * (q(0.95) - q(0.05))) / Math.LN2, 2) };
}

/** One changed phone region per label option: the first sentence whose labels it changes vs Festival's. */
function printLabelDiffs() {
  for (const opt of ['waslElision', 'allahLongVowel', 'arabicPunctuation']) {
    const o = { ...F, [opt]: true };
    const s = sentences.find((t) => JSON.stringify(textToLabels(t, F)) !== JSON.stringify(textToLabels(t, o)));
    if (!s) { console.log(`${opt}: changes nothing in these sentences`); continue; }
    const a = textToLabels(s, F), b = textToLabels(s, o);
    console.log(`\n${opt}: ${s}`);
    console.log(`  festival: ${a.map((u) => u.map(phoneName).join(' ')).join(' || ')}`);
    console.log(`  +${opt}: ${b.map((u) => u.map(phoneName).join(' ')).join(' || ')}`);
    // The labels at the first phone that differs (position k of the flattened lists).
    const fa = a.flat(), fb = b.flat();
    const k = fa.findIndex((l, i) => phoneName(l) !== phoneName(fb[i] ?? 'x^x-x+x'));
    console.log(`  labels at the first changed phone (#${k}):\n    - ${fa[k]}\n    + ${fb[k]}`);
  }
  console.log('');
}
if (process.env.BENCH_AB_DIFF === '1') printLabelDiffs();

const table = {};
await synth(textToLabels(sentences[0]), WHOLE); // pool + page cache warm
for (const [name, labelOpts, extra, voice] of variants) {
  const rows = [];
  let ms = 0, seconds = 0, peak = 0, sq = 0, count = 0, overKnee = 0;
  const pauses = [];
  const acc = { utterances: 0, phones: 0, speechMs: 0, edgePau: [], innerPau: [], ah: [], allah: [], allahumma: [], aaElsewhere: [], aElsewhere: [] };
  const atSpeed1 = (extra.speed ?? 1) === 1;
  for (const s of sentences) {
    const utterances = textToLabels(s, labelOpts);
    const { pcm, ms: t } = await synth(utterances, extra);
    const x = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
    ms += t; seconds += x.length / 24000;
    for (const v of x) { const a = Math.abs(v); if (a > peak) peak = a; sq += v * v; if (a > 0.8 * 32767) overKnee++; }
    count += x.length;
    pauses.push(...audioPauses(x));
    if (atSpeed1) await labelStats(utterances, acc);
    rows.push(await score(x));
  }
  const m = (k) => round(rows.reduce((a, r) => a + r[k], 0) / rows.length, 3);
  const rms = Math.sqrt(sq / count);
  table[name] = {
    SIG: m('sig'), BAK: m('bak'), OVRL: m('ovrl'), OVRLmin: round(Math.min(...rows.map((r) => r.ovrl)), 3),
    peakDbfs: round(20 * Math.log10(peak / 32768), 2), rmsDbfs: round(20 * Math.log10(rms / 32768), 2),
    crestDb: round(20 * Math.log10(peak / rms), 2), overKneePct: round((100 * overKnee) / count, 4), rtf: round(ms / 1000 / seconds, 4),
    audioS: round(seconds, 2),
    audioPauses: { n50: pauses.length, n100: pauses.filter((p) => p >= 100).length, meanMs: mean(pauses), totalMs: pauses.reduce((a, b) => a + b, 0) },
    ...(atSpeed1 && {
      labels: {
        utterances: acc.utterances,
        speechS: round(acc.speechMs / 1000, 2),
        phones: acc.phones,
        phonesPerS: round(acc.phones / (acc.speechMs / 1000), 2),
        innerPau: { n: acc.innerPau.length, meanMs: mean(acc.innerPau), totalMs: round(acc.innerPau.reduce((a, b) => a + b, 0), 0) },
        edgePau: { n: acc.edgePau.length, meanMs: mean(acc.edgePau) },
        ah: { n: acc.ah.length, totalMs: round(acc.ah.reduce((a, b) => a + b, 0), 0) },
        allahVowel: { n: acc.allah.length, long: acc.allah.filter((v) => v.p === 'aa').length, meanMs: mean(acc.allah.map((v) => v.ms)) },
        allahummaVowel: { n: acc.allahumma.length, long: acc.allahumma.filter((v) => v.p === 'aa').length, meanMs: mean(acc.allahumma.map((v) => v.ms)) },
        aaElsewhereMs: { mean: mean(acc.aaElsewhere), median: median(acc.aaElsewhere) },
        aElsewhereMs: { mean: mean(acc.aElsewhere), median: median(acc.aElsewhere) },
      },
    }),
    ...(voice && { voice, ...(await f0Stats(extra)) }),
  };
  console.log(name.padEnd(28), JSON.stringify(table[name]));
  table[name].OVRLperSentence = rows.map((r) => round(r.ovrl, 3)); // in the results file only
}
writeResults('hts-ab', { date: new Date().toISOString(), sentenceFile: path.relative(path.join(here, '..'), sentenceFile), from: FROM, sentences: sentences.length, variants: table });
