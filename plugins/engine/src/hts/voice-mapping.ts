/**
 * Speaker mapping on an HTS base voice's own parameter streams (log-F0 shift and spread, all-pass
 * warping, a mel-cepstral offset), not on its audio: nothing is re-analyzed, so the quality stays.
 */
import type { HtsVoiceParams } from '../catalog.js';

/** The all-pass constant the ara_norm_ziad voice was trained with (OPTION[MCP]:ALPHA). */
export const TRAINED_ALPHA = 0.55;
/** Sampling rate of the HTS voice. */
export const HTS_RATE = 48000;
/** Coefficients of its mel-cepstrum (VECTOR_LENGTH[MCP]). */
export const MCEP_LENGTH = 35;

/** Warped frequency of ω (radians, 0…π) under the first-order all-pass of constant `alpha`. */
export function warpFrequency(omega: number, alpha: number): number {
  return omega + 2 * Math.atan2(alpha * Math.sin(omega), 1 - alpha * Math.cos(omega));
}

/** Actual frequency (radians) of a mel-cepstral feature trained at warped position `omega` and synthesized with `alpha`. */
const synthesizedAt = (omega: number, alpha: number) => warpFrequency(warpFrequency(omega, TRAINED_ALPHA), -alpha);

/** Speech band over which a warp factor is matched (as in the spectral match: 300–5500 Hz). */
const BAND = Array.from({ length: 48 }, (_, i) => (2 * Math.PI * (300 * Math.pow(5500 / 300, i / 47))) / HTS_RATE);

/**
 * The all-pass constant that moves the formants of speech synthesized with `baseAlpha` by the
 * factor `warp` (>1: higher formants, a shorter vocal tract), matched in the log-frequency
 * mean over the speech band. Lower alpha = higher formants; the result is kept in 0.3–0.75.
 */
export function alphaForWarp(warp: number, baseAlpha = TRAINED_ALPHA): number {
  const target = Math.log(warp);
  const shift = (alpha: number) => BAND.reduce((s, w) => s + Math.log(synthesizedAt(w, alpha) / synthesizedAt(w, baseAlpha)), 0) / BAND.length;
  let lo = 0.3, hi = 0.75; // shift(lo) > shift(hi)
  if (shift(lo) <= target) return lo;
  if (shift(hi) >= target) return hi;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (shift(mid) > target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * A smooth EQ (dB per bin over 0…eqRate/2, as the spectral match gives it) as the mel-cepstral
 * offset that applies it to speech vocoded with `alpha`: c̃m = (2/π)∫ L(ω(ω̃)) cos(mω̃) dω̃ with L
 * the natural-log gain at the actual frequency of each warped frequency. The EQ is followed up to
 * `fullToHz` (4 kHz), its value there faded out by `fadeToHz` (6 kHz): the speaker's timbre lives
 * in the formant region, while above it the reference's recording chain dominates (a 16 kHz
 * recording has nothing above 8 kHz) and copying it would only muffle the voice (measured with
 * bench:clone: following the EQ to 7.5 kHz made the clones' MFCC distance to the reference worse
 * than no EQ at all). c̃0 is left at 0 so the level stays the engine's.
 */
export function eqToMelCepstrum(eqDb: readonly number[], eqRate: number, alpha: number, length = MCEP_LENGTH, fullToHz = 4000, fadeToHz = 6000): number[] {
  const N = 1024;
  const gain = new Float64Array(N);
  for (let n = 0; n < N; n++) {
    const wt = ((n + 0.5) / N) * Math.PI;
    const hz = (warpFrequency(wt, -alpha) / (2 * Math.PI)) * HTS_RATE;
    const fade = hz <= fullToHz ? 1 : hz >= fadeToHz ? 0 : 0.5 + 0.5 * Math.cos((Math.PI * (hz - fullToHz)) / (fadeToHz - fullToHz));
    const bin = Math.min((Math.min(hz, fullToHz) / (eqRate / 2)) * (eqDb.length - 1), eqDb.length - 1.000001);
    if (fade === 0) continue;
    const i = Math.floor(bin), f = bin - i;
    gain[n] = fade * ((eqDb[i]! * (1 - f) + eqDb[i + 1]! * f) * Math.LN10) / 20;
  }
  const c = new Array<number>(length).fill(0);
  for (let m = 1; m < length; m++) {
    let s = 0;
    for (let n = 0; n < N; n++) s += gain[n]! * Math.cos((m * (n + 0.5) * Math.PI) / N);
    c[m] = (2 * s) / N;
  }
  return c;
}

/** What the reference speaker's analysis asks of the base voice (see clone/profile-math.ts's StoredProfile). */
export interface SpeakerMapping {
  /** Log-F0 median, mean and spread of the base voice's speech; median and spread of the reference. */
  baseLogF0Center: number;
  baseLogF0Mean: number;
  baseLogF0Std: number;
  refLogF0Center: number;
  refLogF0Std: number;
  /** Formant warp factor reference/base (>1: reference formants higher). */
  warp: number;
  /** Smooth EQ toward the reference after warping, dB per bin over 0…eqRate/2. */
  eqDb: readonly number[];
  eqRate: number;
  /** Long-term spectrum of the base voice (dB per bin over 0…eqRate/2): the EQ keeps its loudness. */
  baseLtasDb?: readonly number[];
}

/** Gain (dB) at `hz` of a mel-cepstrum vocoded with `alpha`: Σ c̃m cos(m ω̃). */
export function melCepstrumGainDb(c: readonly number[], alpha: number, hz: number): number {
  const wt = warpFrequency((2 * Math.PI * hz) / HTS_RATE, alpha);
  let g = 0;
  for (let m = 0; m < c.length; m++) g += c[m]! * Math.cos(m * wt);
  return (g * 20) / Math.LN10;
}

/** Most an EQ band may move (dB), and most the level may be made up for it (dB): beyond, the voice turns shrill or dull, and peaky. */
export const MAX_EQ_DB = 10;
export const MAX_MAKEUP_DB = 6;

/** `c` with c̃0 set so that speech of long-term spectrum `ltasDb` keeps its power (within ±MAX_MAKEUP_DB): no louder, no quieter. */
export function keepLoudness(c: readonly number[], alpha: number, ltasDb: readonly number[], rate: number): number[] {
  let before = 0, after = 0;
  for (let i = 1; i < ltasDb.length; i++) {
    const p = Math.pow(10, ltasDb[i]! / 10);
    before += p;
    after += p * Math.pow(10, melCepstrumGainDb(c, alpha, (i * rate) / 2 / (ltasDb.length - 1)) / 10);
  }
  const out = [...c];
  if (before > 0 && after > 0) out[0] = (c[0] ?? 0) - (clamp(10 * Math.log10(after / before), -MAX_MAKEUP_DB, MAX_MAKEUP_DB) * Math.LN10) / 20;
  return out;
}

export const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

function offsetFor(m: SpeakerMapping, s: number, alpha: number): number[] {
  const c = eqToMelCepstrum(m.eqDb.map((d) => clamp(d, -MAX_EQ_DB, MAX_EQ_DB) * s), m.eqRate, alpha);
  return m.baseLtasDb ? keepLoudness(c, alpha, m.baseLtasDb, m.eqRate) : c;
}

/** Bounds of the F0 spread ratio: wider ratios mostly copy the reference's tracking errors and word-list intonation. */
const SPREAD_RANGE = [0.67, 1.5] as const;

/**
 * The HTS voice parameters of `base` moved toward the reference by `similarity` (0–1). The engine scales the
 * F0 spread around the log-F0 mean, which moves the median of skewed intonation; the half-tone shift makes up for it.
 */
export function htsVoiceToward(base: HtsVoiceParams, m: SpeakerMapping, similarity: number): HtsVoiceParams {
  const s = clamp(similarity, 0, 1);
  const baseAlpha = base.alpha ?? TRAINED_ALPHA;
  const alpha = s > 0 ? alphaForWarp(Math.pow(m.warp, s), baseAlpha) : baseAlpha;
  const spread = Math.pow(clamp(Math.max(0.01, m.refLogF0Std) / Math.max(0.01, m.baseLogF0Std), ...SPREAD_RANGE), s);
  const shift = s * (m.refLogF0Center - m.baseLogF0Center) + (m.baseLogF0Center - m.baseLogF0Mean) * (1 - spread);
  const semitones = (shift * 12) / Math.LN2;
  return {
    ...base,
    halfTone: clamp((base.halfTone ?? 0) + semitones, -24, 24),
    f0Spread: clamp((base.f0Spread ?? 1) * spread, 0, 4),
    alpha,
    mgcOffset: s > 0 ? offsetFor(m, s, alpha) : base.mgcOffset,
  };
}
