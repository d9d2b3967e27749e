// node bench/hts-ab.js: A/B of the HTS voice's label options and vocoding windows, straight on the
// addon (no server): DNSMOS P.835 (sig_bak_ovr.onnx), peak / RMS / crest factor and the share of
// samples past the limiter's knee, and the vocoding cost (RTF) of each variant, on the diacritized
// sentences of test/frontend/diacritization-sentences.txt (normalized by the front end's normalize stage).
// BENCH_DNSMOS_SENTENCES (default 20) sentences; BENCH_AB_VARIANTS=name,name… runs a subset.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { here, round, writeResults } from './harness.js';

const { OnnxSession, resample, synthesizeHtsStream, textToLabels, normalizeText, FESTIVAL_LABEL_OPTIONS, DEFAULT_LABEL_OPTIONS } = await import('../plugins/engine/dist/index.js');
const shared = path.resolve(here, '../../shared/models');
const voicePath = path.join(shared, 'hts/ara_norm_ziad/ara_norm_ziad_hts.htsvoice');
const dnsmosPath = path.join(shared, 'eval/dnsmos/sig_bak_ovr.onnx');
if (!existsSync(voicePath) || !existsSync(dnsmosPath)) {
  console.error('bench/hts-ab: needs the HTS voice and DNSMOS under ../shared/models');
  process.exit(1);
}
const SENTENCES = Number(process.env.BENCH_DNSMOS_SENTENCES ?? 20);
const sentences = readFileSync(path.join(here, '../test/frontend/diacritization-sentences.txt'), 'utf8')
  .split('\n').map((s) => s.trim()).filter(Boolean).slice(0, SENTENCES).map((s) => normalizeText(s));

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
  ["default/windowed-60-grow-600", D, {}],
  ["default/windowed-100-grow-600", D, { firstWindowFrames: 100 }],
  ["default/windowed-80-grow-600", D, { firstWindowFrames: 80 }],
  ['default/windowed-60-whole', D, { firstWindowFrames: 60, windowFrames: 100000 }],
  ['default/whole/gain-0dB', D, { ...WHOLE, gainDb: 0 }],
  ['default/whole/gain-12dB', D, { ...WHOLE, gainDb: -12 }],
];
const pick = process.env.BENCH_AB_VARIANTS?.split(',');
const variants = pick ? ALL.filter(([n]) => pick.includes(n)) : ALL;

function synth(utterances, extra) {
  return new Promise((resolve, reject) => {
    const parts = [];
    const t0 = performance.now();
    const s = synthesizeHtsStream({ voicePath, utterances, sampleRate: 24000, chunkMs: 0, threads: 1, ...extra });
    s.on('data', (b) => parts.push(b));
    s.on('error', reject);
    s.on('end', () => resolve({ pcm: Buffer.concat(parts), ms: performance.now() - t0 }));
  });
}

const session = await OnnxSession.create(dnsmosPath);
const poly = (x, [a, b, c]) => a * x * x + b * x + c;
const WIN = 144160;
async function score(i16at24) {
  const i16 = resample(i16at24, 24000, 16000);
  let audio = Float32Array.from(i16, (v) => v / 32768);
  while (audio.length < WIN) { const a = new Float32Array(audio.length * 2); a.set(audio); a.set(audio, audio.length); audio = a; }
  let sig = 0, bak = 0, ovr = 0, n = 0;
  for (let s = 0; s + WIN <= audio.length; s += 16000, n++) {
    const out = await session.run({ [session.inputNames[0]]: { type: 'float32', dims: [1, WIN], data: audio.slice(s, s + WIN) } });
    const [rs, rb, ro] = out[session.outputNames[0]].data;
    sig += poly(rs, [-0.08397278, 1.22083953, 0.0052439]);
    bak += poly(rb, [-0.13166888, 1.60915514, -0.39604546]);
    ovr += poly(ro, [-0.06766283, 1.11546468, 0.04602535]);
  }
  return { sig: sig / n, bak: bak / n, ovrl: ovr / n };
}

const table = {};
await synth(textToLabels(sentences[0]), WHOLE); // pool + page cache warm
for (const [name, labelOpts, extra] of variants) {
  const rows = [];
  let ms = 0, seconds = 0, peak = 0, sq = 0, count = 0, overKnee = 0;
  for (const s of sentences) {
    const { pcm, ms: t } = await synth(textToLabels(s, labelOpts), extra);
    const x = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
    ms += t; seconds += x.length / 24000;
    for (const v of x) { const a = Math.abs(v); if (a > peak) peak = a; sq += v * v; if (a > 0.8 * 32767) overKnee++; }
    count += x.length;
    rows.push(await score(x));
  }
  const mean = (k) => round(rows.reduce((a, r) => a + r[k], 0) / rows.length, 3);
  const rms = Math.sqrt(sq / count);
  table[name] = {
    SIG: mean('sig'), BAK: mean('bak'), OVRL: mean('ovrl'), OVRLmin: round(Math.min(...rows.map((r) => r.ovrl)), 3),
    peakDbfs: round(20 * Math.log10(peak / 32768), 2), rmsDbfs: round(20 * Math.log10(rms / 32768), 2),
    crestDb: round(20 * Math.log10(peak / rms), 2), overKneePct: round((100 * overKnee) / count, 4), rtf: round(ms / 1000 / seconds, 4),
  };
  console.log(name.padEnd(28), JSON.stringify(table[name]));
}
session.release?.();
writeResults('hts-ab', { date: new Date().toISOString(), sentences: sentences.length, variants: table });
