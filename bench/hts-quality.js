// node bench/hts-quality.js: DNSMOS P.835 (SIG/BAK/OVRL) of the HTS voice on the front end's own
// output — normalize, lexicon and the bundled diacritizer (the default pipeline), then Sawt's labels —
// per variant of the vocoding controls (postfilter, GV weights, gain) and per voice (every sawt-hts
// voice of config/default.json, dialect voices with their dialect's rules and prosody).
// Sentence sets: `tuning` = the 20 sentences bench:hts scores (test/frontend/diacritization-sentences.txt,
// diacritized) used to choose the defaults; `heldout` = bench/hts-heldout-sentences.txt (20 new,
// undiacritized, never used for tuning). BENCH_Q_SETS=tuning,heldout (default both),
// BENCH_Q_VARIANTS=name,… (default: `default`, the settings HtsBackend uses), BENCH_Q_VOICES=id,…
// (default fusha-ziad; `all` = every sawt-hts voice), BENCH_Q_SENTENCES (per set, default 20).
// Straight on the addon (no server). Results go to bench/results/.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { here, htsPcm, round, writeResults } from './harness.js';
import { createDnsmos, DNSMOS_PATH } from './dnsmos.js';

const E = { ...(await import('../plugins/engine/dist/index.js')), ...(await import('@sawt/native')) };
const models = path.resolve(here, '../models');
const voicePath = path.join(models, 'hts/ara_norm_ziad/ara_norm_ziad_hts.htsvoice');
if (!existsSync(DNSMOS_PATH)) {
  console.error('bench/hts-quality: needs DNSMOS (../shared/models/eval/dnsmos/sig_bak_ovr.onnx)');
  process.exit(1);
}
const N = Number(process.env.BENCH_Q_SENTENCES ?? 20);
const lines = (file) => readFileSync(file, 'utf8').split('\n').map((s) => s.trim()).filter(Boolean);
const SETS = {
  tuning: lines(path.join(here, '../test/frontend/diacritization-sentences.txt')).slice(0, N),
  heldout: lines(path.join(here, 'hts-heldout-sentences.txt')).slice(0, N),
};
const sets = (process.env.BENCH_Q_SETS ?? 'tuning,heldout').split(',').map((s) => s.trim());

// Variants: vocoding controls on top of what HtsBackend gives a voice (request speed 1, stability 0.5).
const VARIANTS = {
  default: {},
  // The settings before issue 12 (gain -6 dB, no output EQ): the baseline.
  before: { gainDb: -6, mgcOffset: undefined, highpassHz: 0 },
  // The defaults before the high-pass (issue 12 item 5's starting point, OVRL 3.156 on the 40 sentences).
  'no-highpass': { highpassHz: 0 },
  'postfilter-0': { postfilter: 0 },
  'postfilter-0.1': { postfilter: 0.1 },
  'postfilter-0.2': { postfilter: 0.2 },
  'postfilter-0.3': { postfilter: 0.3 },
  'postfilter-0.4': { postfilter: 0.4 },
  'gvMgc-0.8': { gvWeightMgc: 0.8 },
  'gvMgc-1.2': { gvWeightMgc: 1.2 },
  'speed-0.92': { speedScale: 0.92 },
  'alpha-0.53': { alpha: 0.53 },
  'f0-smooth-5': { f0Smooth: 5 },
  'pau-quiet': { pauQuiet: 4 },
  'eq-hf-4': { eq: (hz) => (hz > 5000 ? -4 * Math.min(1, (hz - 5000) / 2000) : 0) },
  'eq-hf+3': { eq: (hz) => (hz > 2500 ? 3 * Math.min(1, (hz - 2500) / 1500) : 0) },
  'eq-hf+6': { eq: (hz) => (hz > 2500 ? 6 * Math.min(1, (hz - 2500) / 1500) : 0) },
  'eq-hf+3-pf0.1': { postfilter: 0.1, eq: (hz) => (hz > 2500 ? 3 * Math.min(1, (hz - 2500) / 1500) : 0) },
  'eq-hf+6-from-1.5k': { eq: (hz) => (hz > 1500 ? 6 * Math.min(1, (hz - 1500) / 2500) : 0) },
  'gain-3dB': { gainDb: -3 },
  'gain-9dB': { gainDb: -9 },
  'gain-7.5dB': { gainDb: -7.5 },
  'gain-10.5dB': { gainDb: -10.5 },
  'gain-12dB': { gainDb: -12 },
  'eq-hf+3-gain-9dB': { gainDb: -9, eq: (hz) => (hz > 2500 ? 3 * Math.min(1, (hz - 2500) / 1500) : 0) },
  'eq-hf+6-gain-12dB': { gainDb: -12, eq: (hz) => (hz > 2500 ? 6 * Math.min(1, (hz - 2500) / 1500) : 0) },
  // Prototypes on the edited streams (the voice's lpf stream is one fixed ~6.5 kHz low-pass: voiced frames
  // are pulses below it and noise above). lpfHz: that low-pass replaced by a Hann-windowed sinc at lpfHz
  // (mixed excitation with a lower cutoff); jitter: Gaussian noise of that SD (log F0) on voiced frames.
  'lpf-5k': { edit: { lpfHz: 5000 } },
  'lpf-4k': { edit: { lpfHz: 4000 } },
  'lpf-3k': { edit: { lpfHz: 3000 } },
  'lpf-2k': { edit: { lpfHz: 2000 } },
  'edit-none': { edit: {} },
  'f0spread-1.3': { f0SpreadScale: 1.3 },
  'f0spread-0.8': { f0SpreadScale: 0.8 },
  'halftone+2': { halfToneAdd: 2 },
  'halftone-2': { halfToneAdd: -2 },
  'speed-1.08': { speedScale: 1.08 },
  'gvLf0-1.3': { gvWeightLf0: 1.3 },
  'lpf-8k': { edit: { lpfHz: 8000 } },
  'lpf-none': { edit: { lpfHz: 24000 } },
  // The vocoder's high-pass (highpassHz) at other corners (10 is the default).
  'hpn-15': { highpassHz: 15 },
  'hpn-20': { highpassHz: 20 },
  'hpn-30': { highpassHz: 30 },
  'hpn-90': { highpassHz: 90 },
  'jitter-0.01': { edit: { jitter: 0.01 } },
  'jitter-0.02': { edit: { jitter: 0.02 } },
};
const variantNames = (process.env.BENCH_Q_VARIANTS ?? 'default').split(',').map((s) => s.trim());

const config = JSON.parse(readFileSync(path.join(here, '../config/default.json'), 'utf8'));
const engine = config.plugins.find((p) => p.resolve === '@sawt/plugin-engine').options;
const htsVoices = engine.voices.filter((v) => v.hts);
const voiceIds = process.env.BENCH_Q_VOICES === 'all' ? htsVoices.map((v) => v.voice_id) : (process.env.BENCH_Q_VOICES ?? 'fusha-ziad').split(',');

const dialects = E.loadDialects([E.BUILTIN_DIALECTS_DIR]);
const diacritizer = await E.Diacritizer.load(models, { model: 'tashkeel/libtashkeel-2024-01-04.onnx', inputMap: 'tashkeel/input_id_map.json', targetMap: 'tashkeel/target_id_map.json' }, { executionProvider: 'cpu', maxConcurrent: 1 });
const pipeline = new E.EngineTextPipeline({ diacritizer, dialects });
const score = await createDnsmos(24000);

const pcmOf = (options) => htsPcm(E.synthesizeHtsStream, { voicePath, ...options });

/** Moving average of `width` frames inside each voiced run (NaN = unvoiced stays). */
function smoothRuns(lf0, width) {
  const out = Float32Array.from(lf0), h = Math.floor(width / 2);
  for (let f = 0; f < lf0.length; f++) {
    if (Number.isNaN(lf0[f])) continue;
    let sum = 0, n = 0;
    for (let k = f - h; k <= f + h; k++) if (k >= 0 && k < lf0.length && !Number.isNaN(lf0[k])) { sum += lf0[k]; n++; }
    out[f] = sum / n;
  }
  return out;
}

/** A linear-phase low-pass of `taps` taps at `hz` (48 kHz), unity at DC. */
function lowpass(hz, taps) {
  const h = new Float64Array(taps), c = (taps - 1) / 2, wc = (2 * Math.PI * hz) / 48000;
  for (let k = 0; k < taps; k++) {
    const x = k - c;
    h[k] = (x === 0 ? wc / Math.PI : Math.sin(wc * x) / (Math.PI * x)) * (0.5 + 0.5 * Math.cos((Math.PI * x) / (c + 1)));
  }
  const sum = h.reduce((a, v) => a + v, 0);
  return h.map((v) => v / sum);
}

/** The experimental stream edits of a variant's `edit` (see VARIANTS). */
function editParams(p, { lpfHz, jitter }) {
  const out = { ...p };
  if (lpfHz) {
    const L = p.dims.lpf, h = lowpass(lpfHz, L), lpf = new Float32Array(p.frames * L);
    for (let f = 0; f < p.frames; f++) lpf.set(h, f * L);
    out.lpf = lpf;
  }
  if (jitter) {
    let seed = 12345;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 4294967296);
    const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
    out.lf0 = Float32Array.from(p.lf0, (v) => (Number.isNaN(v) ? v : v + jitter * gauss()));
  }
  return out;
}

const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));
const results = { date: new Date().toISOString(), frontEnd: 'normalize + lexicon + diacritizer (bundled) + labels', sentences: Object.fromEntries(sets.map((s) => [s, SETS[s].length])), voices: {} };
for (const id of voiceIds) {
  const voice = htsVoices.find((v) => v.voice_id === id);
  if (!voice) throw new Error(`bench/hts-quality: no sawt-hts voice ${id}`);
  const d = dialects.get(voice.dialect[0]);
  const rewrite = d?.hasHtsRules ? (p) => d.applyHts(p) : undefined;
  const prosody = d?.htsProsody ?? { speed: 1, f0Spread: 1, halfTone: 0 };
  const p = voice.hts;
  // As HtsBackend.synthesize at request speed 1 and stability 0.5 (its defaults included).
  const base = {
    speed: clamp((p.speed ?? 1) * prosody.speed, 0.25, 4),
    halfTone: (p.halfTone ?? 0) + prosody.halfTone,
    f0Spread: clamp((p.f0Spread ?? 1) * prosody.f0Spread, 0, 4),
    ...(p.alpha !== undefined && { alpha: p.alpha }),
    ...E.HTS_QUALITY_DEFAULTS,
    mgcOffset: E.addOffsets(p.mgcOffset, E.outputEqOffset(E.HTS_OUTPUT_EQ, p.alpha)),
  };
  results.voices[id] = {};
  for (const set of sets) {
    const texts = await pipeline.runMany('diacritize', SETS[set], { dialect: voice.dialect[0] });
    const utts = texts.map((t) => E.textToUtterances(t, E.DEFAULT_LABEL_OPTIONS, rewrite));
    for (const name of variantNames) {
      const scores = [];
      const { speedScale = 1, f0Smooth = 0, pauQuiet = 0, eq, edit, f0SpreadScale = 1, halfToneAdd = 0, ...controls } = VARIANTS[name];
      if (eq) {
        // An output EQ (dB at each frequency) as a constant mel-cepstral offset, level kept at c0.
        const bins = Array.from({ length: 241 }, (_, i) => eq((i * 24000) / 240));
        controls.mgcOffset = E.addOffsets(voice.hts.mgcOffset, E.eqToMelCepstrum(bins, 48000, base.alpha ?? 0.55, 35, 24000, 24001));
      }
      for (const u of utts) {
        const closures = u.some((x) => x.voicedClosures.length) ? { voicedClosures: u.map((x) => x.voicedClosures) } : {};
        const options = { utterances: u.map((x) => x.labels), ...closures, ...base, ...controls, speed: base.speed * speedScale, f0Spread: base.f0Spread * f0SpreadScale, halfTone: base.halfTone + halfToneAdd };
        if (edit) {
          const { utterances, voicedClosures, ...rest } = options;
          const params = await E.htsParameters({ voicePath, utterances, ...(voicedClosures && { voicedClosures }), ...rest, threads: 1 });
          scores.push(await score(await pcmOf({ ...rest, parameters: params.map((p) => editParams(p, edit)) })));
        } else if (pauQuiet) {
          // Experimental: the pau frames (utterance edges and phrase breaks) made quieter (c0 − pauQuiet nepers).
          const { utterances, voicedClosures, ...rest } = options;
          const params = await E.htsParameters({ voicePath, utterances, ...(voicedClosures && { voicedClosures }), ...rest, threads: 1 });
          const quiet = params.map((p, k) => {
            const mgc = Float32Array.from(p.mgc);
            utterances[k].forEach((l, i) => {
              if (!/-pau\+/.test(l)) return;
              for (let f = p.labelFrames[i]; f < (p.labelFrames[i + 1] ?? p.frames); f++) mgc[f * p.dims.mgc] -= pauQuiet;
            });
            return { ...p, mgc };
          });
          scores.push(await score(await pcmOf({ ...rest, parameters: quiet })));
        } else if (f0Smooth) {
          // Experimental: log F0 smoothed (moving average within voiced runs), vocoded from the edited streams.
          const { utterances, voicedClosures, ...rest } = options;
          const params = await E.htsParameters({ voicePath, utterances, ...(voicedClosures && { voicedClosures }), ...rest, threads: 1 });
          scores.push(await score(await pcmOf({ ...rest, parameters: params.map((p) => ({ ...p, lf0: smoothRuns(p.lf0, f0Smooth) })) })));
        } else scores.push(await score(await pcmOf(options)));
      }
      const mean = (k) => round(scores.reduce((a, x) => a + x[k], 0) / scores.length, 3);
      (results.voices[id][name] ??= {})[set] = { SIG: mean('sig'), BAK: mean('bak'), OVRL: mean('ovrl') };
      console.error(id, name, set, JSON.stringify(results.voices[id][name][set]));
    }
  }
}
diacritizer.release();
writeResults('hts-quality', results);
