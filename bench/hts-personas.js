// node bench/hts-personas.js: every built-in persona on sawt-hts (the one HMM voice, moved at the
// parameter level: half-tones and F0 spread on log F0, the all-pass constant of the mel-cepstrum for
// the vocal-tract length), measured against the male HTS voice as recorded (fusha-ziad) on the same
// sentences. Per persona:
//  - F0 median (Hz; the addon's YIN over all the sentences together);
//  - formant shift vs fusha-ziad: `warp`, the frequency scale that best lays the persona's long-term
//    spectrum (smoothed, 300–4000 Hz) onto the male voice's (>1: formants higher, a shorter vocal
//    tract), and the ratio of their spectral centroids over 300–5500 Hz;
//  - DNSMOS P.835 SIG/BAK/OVRL (mean over sentences) and OVRL minus fusha-ziad's.
// Synthesis as HtsBackend does it at request speed 1 and stability 0.5: the front end's own output
// (normalize, lexicon, the bundled diacritizer), the persona's dialect rules and prosody.
// Sentences: bench/hts-heldout-sentences.txt (BENCH_P_SENTENCES, default 20). BENCH_P_VOICES=id,…
// (default every persona with `hts` parameters). Straight on the addon (no server). Results go to bench/results/.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { here, htsPcm, round, writeResults } from './harness.js';
import { createDnsmos, DNSMOS_PATH } from './dnsmos.js';

const E = { ...(await import('../plugins/engine/dist/index.js')), ...(await import('@sawt/native')) };
const models = path.resolve(here, '../models');
const voicePath = path.join(models, 'hts/ara_norm_ziad/ara_norm_ziad_hts.htsvoice');
if (!existsSync(DNSMOS_PATH)) {
  console.error('bench/hts-personas: needs DNSMOS (../shared/models/eval/dnsmos/sig_bak_ovr.onnx)');
  process.exit(1);
}
const MALE = 'fusha-ziad';
const N = Number(process.env.BENCH_P_SENTENCES ?? 20);
const sentences = readFileSync(path.join(here, 'hts-heldout-sentences.txt'), 'utf8').split('\n').map((s) => s.trim()).filter(Boolean).slice(0, N);

const config = JSON.parse(readFileSync(path.join(here, '../config/default.json'), 'utf8'));
const engine = config.plugins.find((p) => p.resolve === '@sawt/plugin-engine').options;
const personas = engine.voices.filter((v) => v.hts);
const ids = process.env.BENCH_P_VOICES ? [MALE, ...process.env.BENCH_P_VOICES.split(',').filter((id) => id !== MALE)] : [MALE, ...personas.map((v) => v.voice_id).filter((id) => id !== MALE)];

const dialects = E.loadDialects([E.BUILTIN_DIALECTS_DIR]);
const diacritizer = await E.Diacritizer.load(models, { model: 'tashkeel/libtashkeel-2024-01-04.onnx', inputMap: 'tashkeel/input_id_map.json', targetMap: 'tashkeel/target_id_map.json' }, { executionProvider: 'cpu', maxConcurrent: 1 });
const pipeline = new E.EngineTextPipeline({ diacritizer, dialects });
const score = await createDnsmos(24000);
const RATE = 24000;
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

/** `db` (LTAS bins over 0…RATE/2) smoothed by a moving average of ±`hz`. */
function smooth(db, hz) {
  const h = Math.max(1, Math.round((hz / (RATE / 2)) * (db.length - 1)));
  return db.map((_, i) => {
    let s = 0, n = 0;
    for (let k = Math.max(0, i - h); k <= Math.min(db.length - 1, i + h); k++, n++) s += db[k];
    return s / n;
  });
}
/** Linear interpolation of bins `db` at `hz`. */
function at(db, hz) {
  const x = (hz / (RATE / 2)) * (db.length - 1), i = Math.floor(x), f = x - i;
  return i + 1 < db.length ? db[i] * (1 - f) + db[i + 1] * f : db[db.length - 1];
}
/** The scale w (0.8–1.6) for which persona(f·w) best matches male(f) over 300–4000 Hz (log-spaced, means removed). */
function formantWarp(persona, male) {
  const p = smooth(persona, 150), m = smooth(male, 150);
  const freqs = Array.from({ length: 96 }, (_, i) => 300 * Math.pow(4000 / 300, i / 95));
  let best = { w: 1, err: Infinity };
  for (let w = 0.8; w <= 1.6; w += 0.002) {
    const d = freqs.map((f) => at(p, f * w) - at(m, f));
    const mean = d.reduce((a, v) => a + v, 0) / d.length;
    const err = d.reduce((a, v) => a + (v - mean) ** 2, 0);
    if (err < best.err) best = { w, err };
  }
  return best.w;
}
/** Spectral centroid (Hz) of LTAS bins `db` over 300–5500 Hz (power-weighted). */
function centroid(db) {
  let s = 0, n = 0;
  db.forEach((v, i) => {
    const hz = (i * RATE) / 2 / (db.length - 1);
    if (hz < 300 || hz > 5500) return;
    const p = Math.pow(10, v / 10);
    s += p * hz;
    n += p;
  });
  return s / n;
}

const results = { date: new Date().toISOString(), reference: MALE, sentences: sentences.length, frontEnd: 'normalize + lexicon + diacritizer (bundled) + labels', voices: {} };
let male = null;
for (const id of ids) {
  const voice = personas.find((v) => v.voice_id === id);
  if (!voice) throw new Error(`bench/hts-personas: no persona ${id} with hts parameters`);
  const d = dialects.get(voice.dialect[0]);
  const rewrite = d?.hasHtsRules ? (p) => d.applyHts(p) : undefined;
  const prosody = d?.htsProsody ?? { speed: 1, f0Spread: 1, halfTone: 0 };
  const p = voice.hts;
  const options = {
    speed: clamp((p.speed ?? 1) * prosody.speed, 0.25, 4),
    halfTone: clamp((p.halfTone ?? 0) + prosody.halfTone, -24, 24),
    f0Spread: clamp((p.f0Spread ?? 1) * prosody.f0Spread, 0, 4),
    ...(p.alpha !== undefined && { alpha: p.alpha }),
    ...E.HTS_QUALITY_DEFAULTS,
    mgcOffset: E.addOffsets(p.mgcOffset, E.outputEqOffset(E.HTS_OUTPUT_EQ, p.alpha)),
  };
  const texts = await pipeline.runMany('diacritize', sentences, { dialect: voice.dialect[0] });
  const pcms = [];
  const q = { sig: 0, bak: 0, ovrl: 0 };
  for (const t of texts) {
    const u = E.textToUtterances(t, E.DEFAULT_LABEL_OPTIONS, rewrite);
    const closures = u.some((x) => x.voicedClosures.length) ? { voicedClosures: u.map((x) => x.voicedClosures) } : {};
    const pcm = await htsPcm(E.synthesizeHtsStream, { voicePath, utterances: u.map((x) => x.labels), ...closures, ...options });
    pcms.push(pcm);
    const s = await score(pcm);
    for (const k of Object.keys(q)) q[k] += s[k] / texts.length;
  }
  const a = await E.analyzeVoice(Buffer.concat(pcms), RATE);
  male ??= { ltas: a.ltasDb, centroid: centroid(a.ltasDb), ovrl: q.ovrl };
  const r = {
    gender: voice.gender, dialect: voice.dialect[0], params: { halfTone: round(options.halfTone, 3), f0Spread: round(options.f0Spread, 4), alpha: p.alpha ?? E.TRAINED_ALPHA, speed: round(options.speed, 4) },
    f0MedianHz: round(a.f0Median, 1),
    formantWarp: round(formantWarp(a.ltasDb, male.ltas), 3),
    centroidRatio: round(centroid(a.ltasDb) / male.centroid, 3),
    SIG: round(q.sig, 3), BAK: round(q.bak, 3), OVRL: round(q.ovrl, 3),
    ovrlVsMale: round(q.ovrl - male.ovrl, 3),
  };
  results.voices[id] = r;
  console.error(id, JSON.stringify(r));
}
const female = Object.values(results.voices).filter((v) => v.gender === 'female');
results.female = {
  count: female.length,
  f0InRange: female.every((v) => v.f0MedianHz >= 180 && v.f0MedianHz <= 250),
  formantsUp: female.every((v) => v.formantWarp > 1 && v.centroidRatio > 1),
  ovrlWithin0_15: female.every((v) => v.ovrlVsMale >= -0.15),
};
diacritizer.release();
writeResults('hts-personas', results);
