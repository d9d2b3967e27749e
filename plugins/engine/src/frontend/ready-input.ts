/** The one hand-off from the front end to a back end: segments in the form it reads (back ends never call the front end). */
import { errors, type BackendInputKind } from '@sawt/core';
import { textToUtterances, type HtsUtterance, type LabelOptions } from '../hts/labels.js';
import { piperSentences } from '../piper/phonemes.js';
import type { PiperPiece } from '../piper/stream.js';
import type { PiperVoiceConfig } from '../piper/voice-config.js';
import type { Dialect } from './dialects.js';

export interface HandOffSources {
  /** Label front-end fixes (hts.labels options). */
  labelOptions: LabelOptions;
  dialects: ReadonlyMap<string, Dialect>;
  /** The voice config of a loaded Piper model (its espeak-ng voice and phoneme map). */
  piperConfig: (modelId: string) => PiperVoiceConfig | undefined;
  /** The first part of a long first sentence is at most this many characters for Piper (0: no cut). */
  piperFirstChars: number;
  /** The same for HTS, on a request's first segment only (0: no cut). */
  htsFirstChars: number;
}

export class BackendHandOff {
  constructor(private readonly sources: HandOffSources) {}

  /** `segments` as `input` (for `modelId`, spoken in `dialect`); 400 / 40001 when nothing of them can be said. */
  sentences(input: BackendInputKind, segments: string[], ctx: { modelId: string; dialect: string | null; first: boolean }): string[] | HtsUtterance[] | PiperPiece[] {
    if (input === 'hts-labels') {
      const dialect = this.sources.dialects.get(ctx.dialect ?? '');
      const rewrite = dialect?.hasHtsRules ? (phones: string[]) => dialect.applyHts(phones) : undefined;
      // HTS plans an utterance whole before its first sample: a long first clause is cut to be two.
      const pieces = ctx.first ? firstChunk(segments, this.sources.htsFirstChars, true) : segments.map((text) => ({ text, cut: false }));
      const utterances = pieces.flatMap(({ text }) => textToUtterances(text, this.sources.labelOptions, rewrite));
      if (utterances.length === 0) throw errors.validation('text contains nothing the Arabic voice can speak');
      return utterances;
    }
    if (input === 'piper-phonemes') {
      const config = this.sources.piperConfig(ctx.modelId);
      if (!config) throw errors.internal(`Piper model '${ctx.modelId}' is not loaded`);
      return firstChunk(segments, this.sources.piperFirstChars).map(({ text, cut }) => ({ text, cut, sentences: piperSentences(text, config.espeakVoice, config.phonemeMap) }));
    }
    return segments;
  }
}

/** Words a new intonation phrase readily starts with: conjunctions, prepositions, relative pronouns. */
const PHRASE_START = /^(?:و|ف|ثم|في|من|إلى|الى|على|عن|مع|الذي|التي|الذين|حيث|لأن|لكن|بل|أو|حتى|كي|لكي)(?=\s|$)|^(?:و|ف)(?:في|من|إلى|على|عن|مع|الذي|التي)(?=\s|$)/u;

/**
 * The segments, the first cut when longer than `maxChars`: at its last clause mark within the limit, else
 * (`phrases`) before a PHRASE_START word, else between words (`cut`: the piece ends mid-sentence).
 */
export function firstChunk(segments: string[], maxChars: number, phrases = false): Array<{ text: string; cut: boolean }> {
  const out = segments.map((text) => ({ text, cut: false }));
  const first = segments[0];
  if (!first || maxChars <= 0 || first.length <= maxChars || first.includes('[[')) return out;
  const head = first.slice(0, maxChars + 1);
  const clause = Math.max(...[...head.matchAll(/[،,؛;:]\s/gu)].map((m) => m.index! + 1), -1);
  const phrase = phrases ? Math.max(...[...head.matchAll(/\s/gu)].map((m) => m.index!).filter((i) => PHRASE_START.test(first.slice(i + 1).replace(/[\u064B-\u0652]/gu, ''))), -1) : -1;
  const space = head.lastIndexOf(' ');
  const at = clause > maxChars / 3 ? clause : phrase > maxChars / 3 ? phrase : space;
  if (at <= 0) return out;
  const a = first.slice(0, at).trim();
  const b = first.slice(at).trim();
  if (!/[\p{L}\p{N}]/u.test(a) || !/[\p{L}\p{N}]/u.test(b)) return out;
  return [{ text: a, cut: true }, { text: b, cut: false }, ...out.slice(1)];
}
