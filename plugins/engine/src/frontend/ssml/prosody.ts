/**
 * SSML's <prosody>, <emphasis> and <break> values as numbers the back ends apply: a rate
 * multiplier, a pitch shift in semitones and a gain in dB, each nested element relative to its
 * parent. Values outside the caps are 400s that name the cap.
 */
import { errors } from '@sawt/core';

export interface Prosody {
  /** Speaking rate multiplier (1 = the request's speed). Nested values multiply. */
  rate: number;
  /** Pitch shift in semitones. Nested values add. */
  pitchSemitones: number;
  /** Gain in dB; null: silent. Nested values add. */
  volumeDb: number | null;
}

export const NEUTRAL_PROSODY: Prosody = Object.freeze({ rate: 1, pitchSemitones: 0, volumeDb: 0 });

export type EmphasisLevel = 'strong' | 'moderate' | 'none' | 'reduced';

/** Caps on one attribute's value (and on the nested result). */
export const PROSODY_LIMITS = { minRate: 0.25, maxRate: 4, maxPitchSemitones: 12, minVolumeDb: -40, maxVolumeDb: 12 } as const;
/** The longest <break>: longer pauses are a 400 (ElevenLabs and Azure cap theirs alike). */
export const MAX_BREAK_MS = 10_000;

const RATE_WORDS: Record<string, number> = { 'x-slow': 0.6, 'slow': 0.8, 'medium': 1, 'default': 1, 'fast': 1.2, 'x-fast': 1.4 };
const PITCH_WORDS: Record<string, number> = { 'x-low': -6, 'low': -3, 'medium': 0, 'default': 0, 'high': 3, 'x-high': 6 };
const VOLUME_WORDS: Record<string, number | null> = { 'silent': null, 'x-soft': -12, 'soft': -6, 'medium': 0, 'default': 0, 'loud': 6, 'x-loud': 10 };
/** Emphasis as slower, higher and louder speech (reduced: the opposite); folded into the prosody. */
const EMPHASIS: Record<EmphasisLevel, { rate: number; pitchSemitones: number; volumeDb: number }> = {
  strong: { rate: 0.85, pitchSemitones: 2, volumeDb: 4 },
  moderate: { rate: 0.93, pitchSemitones: 1, volumeDb: 2 },
  none: { rate: 1, pitchSemitones: 0, volumeDb: 0 },
  reduced: { rate: 1.07, pitchSemitones: -1, volumeDb: -4 },
};
const BREAK_STRENGTH: Record<string, number> = { 'none': 0, 'x-weak': 250, 'weak': 500, 'medium': 750, 'strong': 1000, 'x-strong': 1250 };

const NUMBER = '(\\d+(?:\\.\\d+)?|\\.\\d+)';
const round = (n: number) => Math.round(n * 1000) / 1000;

/** A signed or unsigned percentage or a plain number: {value, relative}. */
function percent(value: string): { value: number; signed: boolean } | null {
  const m = new RegExp(`^([+-])?${NUMBER}%$`, 'u').exec(value);
  if (!m) return null;
  const n = Number(m[2]);
  return { value: m[1] === '-' ? -n : n, signed: m[1] !== undefined };
}

function range(what: string, where: string, lo: number, hi: number, unit: string): never {
  throw errors.validation(`SSML: ${what} at ${where} is out of range; accepted: ${lo}${unit} to ${hi}${unit}`);
}

/** `rate` ("slow", "80%", "+10%", "1.2"): a multiplier. */
export function parseRate(value: string, where: string): number {
  const v = value.trim();
  let rate: number | undefined = RATE_WORDS[v];
  if (rate === undefined) {
    const p = percent(v);
    if (p) rate = p.signed ? 1 + p.value / 100 : p.value / 100;
    else if (new RegExp(`^${NUMBER}$`, 'u').test(v)) rate = Number(v);
    else throw errors.validation(`SSML: <prosody rate="${value}"> at ${where}: use x-slow, slow, medium, fast, x-fast, a percentage (80%, +10%) or a multiplier (1.2)`);
  }
  if (!(rate >= PROSODY_LIMITS.minRate && rate <= PROSODY_LIMITS.maxRate)) range(`<prosody rate="${value}">`, where, PROSODY_LIMITS.minRate * 100, PROSODY_LIMITS.maxRate * 100, '%');
  return rate;
}

/** `pitch` ("high", "+2st", "-10%"): semitones. Hz needs the voice's own pitch, which SSML does not give: refused. */
export function parsePitch(value: string, where: string): number {
  const v = value.trim();
  let st: number | undefined = PITCH_WORDS[v];
  if (st === undefined) {
    const semis = new RegExp(`^([+-])?${NUMBER}st$`, 'u').exec(v);
    const p = percent(v);
    if (semis) st = (semis[1] === '-' ? -1 : 1) * Number(semis[2]);
    else if (p) {
      const factor = p.signed ? 1 + p.value / 100 : p.value / 100;
      if (!(factor > 0)) range(`<prosody pitch="${value}">`, where, -PROSODY_LIMITS.maxPitchSemitones, PROSODY_LIMITS.maxPitchSemitones, 'st');
      st = 12 * Math.log2(factor);
    } else throw errors.validation(`SSML: <prosody pitch="${value}"> at ${where}: use x-low, low, medium, high, x-high, semitones (+2st) or a percentage (+10%)`);
  }
  if (Math.abs(st) > PROSODY_LIMITS.maxPitchSemitones) range(`<prosody pitch="${value}">`, where, -PROSODY_LIMITS.maxPitchSemitones, PROSODY_LIMITS.maxPitchSemitones, 'st');
  return round(st);
}

/** `volume` ("loud", "+6dB", "-20%", "silent"): dB, null for silent. */
export function parseVolume(value: string, where: string): number | null {
  const v = value.trim();
  if (v in VOLUME_WORDS) return VOLUME_WORDS[v]!;
  let db: number;
  const decibels = new RegExp(`^([+-])?${NUMBER}dB$`, 'u').exec(v);
  const p = percent(v);
  if (decibels) db = (decibels[1] === '-' ? -1 : 1) * Number(decibels[2]);
  else if (p) {
    const factor = p.signed ? 1 + p.value / 100 : p.value / 100;
    if (factor === 0) return null;
    if (!(factor > 0)) range(`<prosody volume="${value}">`, where, PROSODY_LIMITS.minVolumeDb, PROSODY_LIMITS.maxVolumeDb, 'dB');
    db = 20 * Math.log10(factor);
  } else throw errors.validation(`SSML: <prosody volume="${value}"> at ${where}: use silent, x-soft, soft, medium, loud, x-loud, decibels (+6dB) or a percentage (-20%)`);
  if (db < PROSODY_LIMITS.minVolumeDb || db > PROSODY_LIMITS.maxVolumeDb) range(`<prosody volume="${value}">`, where, PROSODY_LIMITS.minVolumeDb, PROSODY_LIMITS.maxVolumeDb, 'dB');
  return round(db);
}

/** A nested prosody: rates multiply, shifts add; the result stays within the caps. */
export function nestProsody(outer: Prosody, inner: Partial<Prosody>, where: string): Prosody {
  const rate = round(outer.rate * (inner.rate ?? 1));
  const pitchSemitones = round(outer.pitchSemitones + (inner.pitchSemitones ?? 0));
  const volumeDb = outer.volumeDb === null || inner.volumeDb === null ? null : round(outer.volumeDb + (inner.volumeDb ?? 0));
  if (rate < PROSODY_LIMITS.minRate || rate > PROSODY_LIMITS.maxRate) range(`the nested prosody rate (×${rate})`, where, PROSODY_LIMITS.minRate * 100, PROSODY_LIMITS.maxRate * 100, '%');
  if (Math.abs(pitchSemitones) > PROSODY_LIMITS.maxPitchSemitones) range(`the nested prosody pitch (${pitchSemitones}st)`, where, -PROSODY_LIMITS.maxPitchSemitones, PROSODY_LIMITS.maxPitchSemitones, 'st');
  if (volumeDb !== null && (volumeDb < PROSODY_LIMITS.minVolumeDb || volumeDb > PROSODY_LIMITS.maxVolumeDb)) range(`the nested prosody volume (${volumeDb}dB)`, where, PROSODY_LIMITS.minVolumeDb, PROSODY_LIMITS.maxVolumeDb, 'dB');
  return { rate, pitchSemitones, volumeDb };
}

export function parseEmphasis(value: string | undefined, where: string): EmphasisLevel {
  const level = (value ?? 'moderate').trim();
  if (!(level in EMPHASIS)) throw errors.validation(`SSML: <emphasis level="${value}"> at ${where}: use strong, moderate, none or reduced`);
  return level as EmphasisLevel;
}

export function emphasisProsody(level: EmphasisLevel): Partial<Prosody> {
  return EMPHASIS[level];
}

/** A <break>'s length in ms: `time` ("500ms", "1.5s") wins over `strength`; neither: medium. */
export function breakMs(time: string | undefined, strength: string | undefined, where: string): number {
  if (time !== undefined) {
    const m = new RegExp(`^${NUMBER}(ms|s)$`, 'u').exec(time.trim());
    if (!m) throw errors.validation(`SSML: <break time="${time}"> at ${where}: write the time in ms or s (500ms, 1.5s)`);
    const ms = Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1));
    if (ms > MAX_BREAK_MS) throw errors.validation(`SSML: <break time="${time}"> at ${where} is longer than the limit of ${MAX_BREAK_MS / 1000} s`);
    return ms;
  }
  const s = (strength ?? 'medium').trim();
  const ms = BREAK_STRENGTH[s];
  if (ms === undefined) throw errors.validation(`SSML: <break strength="${strength}"> at ${where}: use none, x-weak, weak, medium, strong or x-strong`);
  return ms;
}

/**
 * The check that needs the model: a run's rate times the request's speed must stay within the
 * rates the model can speak. Throws 400 naming the limit and where the run starts.
 */
export function checkRateRange(rate: number, speed: number, model: { id: string; minRate: number; maxRate: number }, where: string): void {
  const effective = round(rate * speed);
  if (effective < model.minRate || effective > model.maxRate) {
    throw errors.validation(`SSML: the prosody rate at ${where} times speed ${speed} is ${effective}, outside the rates ${model.id} can speak (${model.minRate} to ${model.maxRate})`);
  }
}
