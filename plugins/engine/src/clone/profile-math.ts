/**
 * The maths of voice cloning, free of I/O: a reference's analysis mapped onto the base voice closest in
 * log-F0, and the settings that move base speech toward it at a similarity from 0 (unchanged) to 1.
 */
import type { VoiceProfile } from '@sawt/core';
import { matchSpectra, type ConvertParams, type VoiceAnalysis } from '@sawt/native';
import { clamp, type SpeakerMapping } from '../hts/voice-mapping.js';

export const PROFILE_VERSION = 1;
export const CLONE_RATE = 24000;
/** Least voiced speech (seconds with an F0) a reference must hold. */
export const MIN_VOICED_SECONDS = 2;
/** Range of the speaking-rate ratio reference/base a clone keeps, and of the speed it asks of its base voice. */
export const RATE_RATIO_RANGE = [0.75, 1.3] as const;
export const BASE_SPEED_RANGE = [0.5, 1.6] as const;

/** What the profile JSON holds (version 1). */
export interface StoredProfile extends VoiceProfile {
  version: number;
  kind: 'sawt-voice-profile';
  sampleRate: number;
  reference: Omit<VoiceAnalysis, 'sampleRate'>;
  /** The reference mapped onto a base voice of the default model (informative: speech maps it per model, see `BaseMapping`). */
  base: BaseMapping['base'];
  mapping: BaseMapping['mapping'];
}

/** The reference mapped onto one base voice. */
export interface BaseMapping {
  /** The model the base voice is synthesized with (absent in profiles written before it was recorded). */
  base: { voiceId: string; modelId?: string; f0Median: number; logF0Mean: number; logF0Std: number; syllableRate: number };
  mapping: { warp: number; eqDb: number[]; rateRatio: number; spectralDistanceBefore: number; spectralDistanceAfter: number };
}

/** A base voice's speech, analyzed. */
export interface AnalyzedBase {
  voiceId: string;
  modelId: string;
  analysis: VoiceAnalysis;
}

/** Where the F0 of converted speech goes: the reference's log-F0 median and spread, reached at similarity 1. */
export interface F0Target {
  similarity: number;
  refLogF0Center: number;
  refLogF0Std: number;
}

/** Where a speaker's log F0 centres: the log of its median F0, or the log-F0 mean when no median was measured. */
export const logF0Center = (a: { f0Median: number; logF0Mean: number }) => (a.f0Median > 0 ? Math.log(a.f0Median) : a.logF0Mean);

/** The base voice closest to `ref` in log-F0 mean (the first of equals). */
export function closestBase<B extends AnalyzedBase>(ref: { logF0Mean: number }, bases: readonly B[]): B {
  if (!bases.length) throw new Error('no base voice to map onto');
  return bases.reduce((a, b) => (Math.abs(b.analysis.logF0Mean - ref.logF0Mean) < Math.abs(a.analysis.logF0Mean - ref.logF0Mean) ? b : a));
}

/** Speaking-rate ratio reference/base (syllables per second), within RATE_RATIO_RANGE; 1 when either rate is unknown. */
export function rateRatio(refSyllableRate: number, baseSyllableRate: number): number {
  return baseSyllableRate > 0 && refSyllableRate > 0 ? clamp(refSyllableRate / baseSyllableRate, ...RATE_RATIO_RANGE) : 1;
}

/** The reference `ref` mapped onto the base voice closest to it in log-F0 (spectra matched natively: warp and EQ). */
export function mapOnto(ref: Omit<VoiceAnalysis, 'sampleRate'>, bases: readonly AnalyzedBase[]): BaseMapping {
  const base = closestBase(ref, bases);
  const b = base.analysis;
  const m = matchSpectra(ref.ltasDb, b.ltasDb, CLONE_RATE);
  return {
    base: { voiceId: base.voiceId, modelId: base.modelId, f0Median: b.f0Median, logF0Mean: b.logF0Mean, logF0Std: b.logF0Std, syllableRate: b.syllableRate },
    mapping: {
      warp: m.warp,
      eqDb: m.eqDb.map((d) => Math.round(d * 100) / 100),
      rateRatio: rateRatio(ref.syllableRate, b.syllableRate),
      spectralDistanceBefore: m.distanceBefore,
      spectralDistanceAfter: m.distanceAfter,
    },
  };
}

/** Conversion settings at a similarity (0–1); convertingStream recalibrates the F0 part on the speech it converts. */
export function conversionAt(profile: Pick<StoredProfile, 'reference'> & BaseMapping, similarity: number): { params: ConvertParams; speedFactor: number; f0: F0Target } {
  const s = clamp(similarity, 0, 1);
  const { base, reference: ref, mapping } = profile;
  const f0: F0Target = { similarity: s, refLogF0Center: logF0Center(ref), refLogF0Std: ref.logF0Std };
  const baseCenter = logF0Center(base);
  return {
    params: { ...f0Mapping(baseCenter, base.logF0Std, f0), warp: Math.pow(mapping.warp, s), eqDb: mapping.eqDb.map((d) => d * s) },
    speedFactor: Math.pow(mapping.rateRatio, s),
    f0,
  };
}

/** The speed asked of the base voice for a request at `speed`: the clone's rate factor applied, within BASE_SPEED_RANGE. */
export function baseSpeed(speed: number, speedFactor: number): number {
  return clamp(speed * speedFactor, ...BASE_SPEED_RANGE);
}

/** The log-F0 mapping from base speech of median `center` and spread `std` toward `t`. */
export function f0Mapping(center: number, std: number, t: F0Target): Pick<ConvertParams, 'srcLogF0Mean' | 'srcLogF0Std' | 'dstLogF0Mean' | 'dstLogF0Std'> {
  const srcStd = Math.max(0.01, std);
  return {
    srcLogF0Mean: center,
    srcLogF0Std: srcStd,
    dstLogF0Mean: center + t.similarity * (t.refLogF0Center - center),
    dstLogF0Std: srcStd * Math.pow(clamp(Math.max(0.01, t.refLogF0Std) / srcStd, 0.5, 2), t.similarity),
  };
}

/** What an HTS base voice's parameter-level mapping (hts/voice-mapping.ts) needs of a profile mapped onto it. */
export function speakerMapping(reference: Pick<VoiceAnalysis, 'f0Median' | 'logF0Mean' | 'logF0Std'>, mapped: BaseMapping, baseLtasDb?: readonly number[]): SpeakerMapping {
  const { base, mapping } = mapped;
  return {
    baseLogF0Center: logF0Center(base), baseLogF0Mean: base.logF0Mean, baseLogF0Std: base.logF0Std,
    refLogF0Center: logF0Center(reference), refLogF0Std: reference.logF0Std,
    warp: mapping.warp, eqDb: mapping.eqDb, eqRate: CLONE_RATE, baseLtasDb,
  };
}

/** Least voiced frames (10 ms) measured before the converted speech's own F0 statistics are used. */
export const MIN_CALIBRATION_FRAMES = 30;
/** Voiced frames kept for the running statistics (the latest 60 s). */
export const MAX_CALIBRATION_FRAMES = 6000;

/** Log-F0 median and spread (outer 5% dropped) of the base speech converted so far: the F0 mapping's calibration. */
export class RunningF0 {
  private logs: number[] = [];

  /** Adds an F0 track (Hz per frame; 0: unvoiced). */
  add(track: ArrayLike<number>): void {
    for (let i = 0; i < track.length; i++) if (track[i] > 0) this.logs.push(Math.log(track[i]));
    if (this.logs.length > MAX_CALIBRATION_FRAMES) this.logs.splice(0, this.logs.length - MAX_CALIBRATION_FRAMES);
  }

  stats(): { center: number; std: number; frames: number } | null {
    const n = this.logs.length;
    if (n < MIN_CALIBRATION_FRAMES) return null;
    const s = [...this.logs].sort((a, b) => a - b);
    const lo = Math.floor(n / 20), hi = n - Math.floor(n / 20);
    let sum = 0;
    for (let i = lo; i < hi; i++) sum += s[i];
    const mean = sum / (hi - lo);
    let sq = 0;
    for (let i = lo; i < hi; i++) sq += (s[i] - mean) ** 2;
    return { center: s[Math.floor(n / 2)], std: Math.sqrt(sq / (hi - lo)), frames: n };
  }
}

/** `params` with its F0 mapping calibrated on the statistics of the speech converted so far. */
export function calibrate(params: ConvertParams, target: F0Target, running: RunningF0): ConvertParams {
  const st = running.stats();
  return st ? { ...params, ...f0Mapping(st.center, st.std, target) } : params;
}
