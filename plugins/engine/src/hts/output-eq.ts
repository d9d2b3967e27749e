/**
 * The HTS voice's output EQ: a gentle high shelf (+dB from `fromHz`, full at `toHz`), applied as a
 * constant mel-cepstral offset so it costs nothing at synthesis. The HMM spectra are over-smoothed
 * and the voice sounds dull; the shelf restores some presence. Chosen with bench/hts-quality.js
 * (DNSMOS on the front end's own output; figures in the closing notes of issue 12).
 */
import { eqToMelCepstrum, HTS_RATE, TRAINED_ALPHA } from './voice-mapping.js';

export interface OutputEq {
  db: number;
  fromHz: number;
  toHz: number;
}

const BINS = 241;
const cache = new Map<string, number[]>();

/** Mel-cepstral offset (c0 = 0: the level is the gain's business) of `eq` for speech vocoded with `alpha`. */
export function outputEqOffset(eq: OutputEq, alpha = TRAINED_ALPHA): number[] {
  const key = `${eq.db}/${eq.fromHz}/${eq.toHz}/${alpha}`;
  let c = cache.get(key);
  if (!c) {
    const nyquist = HTS_RATE / 2;
    const db = Array.from({ length: BINS }, (_, i) => {
      const hz = (i * nyquist) / (BINS - 1);
      return hz <= eq.fromHz ? 0 : eq.db * Math.min(1, (hz - eq.fromHz) / (eq.toHz - eq.fromHz));
    });
    c = eqToMelCepstrum(db, HTS_RATE, alpha, undefined, nyquist, nyquist + 1);
    cache.set(key, c);
  }
  return c;
}

/** `a` + `b`, element by element (the longer one's tail kept). */
export function addOffsets(a: readonly number[] | undefined, b: readonly number[]): number[] {
  const out = [...(a ?? [])];
  b.forEach((v, i) => (out[i] = (out[i] ?? 0) + v));
  return out;
}
