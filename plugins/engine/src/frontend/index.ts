import { setTimeout } from 'node:timers/promises';
import { turnBudget } from '@sawt/core';
import { normalizeText } from './normalize.js';
import { mapTextParts, protectRaw } from './raw.js';
import { segmentText, type SegmentOptions } from './segment.js';

/** How long after the first segment the other segments enter the front end (processInParts). */
const REST_DELAY_MS = 10;

/**
 * The text front end: whole-text stages (normalize, lexicon), then segmentation, then per-segment
 * stages (diacritize, phonemize) on every segment concurrently. [[ … ]] spans pass through untouched.
 */
export interface FrontEndInput {
  text: string;
  dialect: string | null;
  /** The model wants diacritized input (default true). */
  diacritize?: boolean;
  /** Phones the back end reads: espeak-ng mnemonics in [[ ]], HTS phone spans (latin/phone-span.ts), or null: none. */
  phonemes?: 'espeak' | 'hts' | null;
  /** Phonemize every clause, not only those a dialect rule changed (operator display). */
  showPhonemes?: boolean;
  /** Set by processInParts on the first segment's run: model stages take it ahead of other waiting work. */
  urgent?: boolean;
  /** Work nobody waits to hear (a long-form job's part): model stages run it in their background lane. */
  background?: boolean;
  /** On a segment cut out of a sentence (not its first): the sentence's text before it (the diacritizer's context). */
  before?: string;
}

export type TextStage = (text: string, ctx: FrontEndInput) => string | Promise<string>;

/**
 * A per-segment stage over many segments at once (one batched model run); results in order.
 * `continues[i]`: segment i is the rest of the sentence segment i - 1 was cut from.
 */
export type BatchTextStage = (texts: string[], ctx: FrontEndInput, continues: boolean[]) => Promise<string[]>;

/** A segment that ends its sentence (segment.ts cuts sentences after these marks). */
const ENDS_SENTENCE = /[.!?؟۔…]["'»”)]*$/u;

/** Whether each segment continues the sentence of the one before it (the segments of one text). */
export function sentenceContinues(segments: string[]): boolean[] {
  return segments.map((s, j) => j > 0 && !ENDS_SENTENCE.test(segments[j - 1]!));
}

interface Stage {
  name: string;
  run: TextStage;
  perSegment: boolean;
  batch?: BatchTextStage;
}

export class TextFrontEnd {
  private readonly stages: Stage[] = [{ name: 'normalize', run: normalizeText, perSegment: false }];

  constructor(private readonly segmentOptions: SegmentOptions = {}) {}

  /** Adds a stage after the others; `perSegment` stages run on each segment, after every whole-text stage. */
  addStage(name: string, run: TextStage, opts: { perSegment?: boolean; batch?: BatchTextStage } = {}): this {
    const perSegment = opts.perSegment ?? false;
    if (!perSegment && this.stages.some((s) => s.perSegment)) throw new Error(`whole-text stage '${name}' must be added before the per-segment stages`);
    this.stages.push({ name, run, perSegment, ...(opts.batch && { batch: opts.batch }) });
    return this;
  }

  /** The texts (same options) after the named stage, segments joined by a space; per-segment stages run over all their segments at once. */
  async runManyUntil(inputs: FrontEndInput[], stageName: string): Promise<string[]> {
    const i = this.stages.findIndex((s) => s.name === stageName);
    if (i < 0) throw new Error(`unknown text stage '${stageName}' (stages: ${this.stages.map((s) => s.name).join(', ')})`);
    const stages = this.stages.slice(0, i + 1);
    if (!this.stages[i]!.perSegment) {
      return Promise.all(inputs.map(async (input) => {
        let text = input.text;
        for (const stage of stages) text = await mapTextParts(text, (p) => stage.run(p, input));
        return text;
      }));
    }
    const owners: number[] = [];
    let segments: string[] = [];
    const continues: boolean[] = [];
    for (const [k, input] of inputs.entries()) {
      const own = await this.segments(input, stages);
      continues.push(...sentenceContinues(own));
      segments.push(...own);
      owners.push(...own.map(() => k));
    }
    const ctx = inputs[0] ?? { text: '', dialect: null };
    for (const stage of stages.filter((s) => s.perSegment)) {
      const texts = segments;
      segments = stage.batch
        ? await stage.batch(texts, ctx, continues)
        : await Promise.all(texts.map((s, j) => stage.run(s, continues[j] ? { ...ctx, before: texts[j - 1]! } : ctx)));
    }
    const out = inputs.map(() => [] as string[]);
    segments.forEach((s, j) => out[owners[j]!]!.push(s));
    return out.map((parts) => parts.join(' '));
  }

  /**
   * The front end in two parts, so synthesis starts on the first segment (its model runs go ahead of
   * waiting work) while `rest` (null: one segment) is still in it. `count`: segments in all (0: nothing to speak).
   */
  async processInParts(input: FrontEndInput): Promise<{ count: number; first: Promise<string[]>; rest: Promise<string[]> | null }> {
    const segments = await this.segments(input, this.stages);
    const perSegment = this.stages.filter((s) => s.perSegment);
    const continues = sentenceContinues(segments);
    // A segment cut out of a sentence is read with the text before it (the diacritizer's context);
    // the first segment never waits for the ones after it.
    const result = (from: number, to: number, ctx: FrontEndInput) =>
      Promise.all(segments.slice(from, to).map((segment, k) => runSegmentStages(segment, perSegment, continues[from + k] ? { ...ctx, before: segments[from + k - 1]! } : ctx)));
    const first = result(0, 1, { ...input, urgent: input.urgent ?? true });
    // The other segments enter the front end once the first is through it, and REST_DELAY_MS
    // later: meanwhile the first segment's synthesis and the request's reservation have the cores
    // (on busy cores each of their steps waited behind the rest's model runs: sawt-mini's first byte,
    // diacritizer cache off, p50 14.6–16.2 → 10.7–11.3 ms). Their audio follows the first
    // segment's, which lasts far longer than this.
    const rest = segments.length > 1 ? first.then(() => setTimeout(REST_DELAY_MS)).then(() => result(1, segments.length, input)) : null;
    // Awaited by the caller in order; a failure of `rest` while `first` is awaited must not go unhandled.
    rest?.catch(() => {});
    return { count: segments.length, first, rest };
  }

  /**
   * The whole-text stages of `stages`, then the segments. Every stage runs once the turn budget grants it,
   * with no await between the grant and its work (core's scheduling.ts says why, with the measurement).
   */
  private async segments(input: FrontEndInput, stages: Stage[]): Promise<string[]> {
    let text = input.text;
    for (const stage of stages.filter((s) => !s.perSegment)) {
      const wait = turnBudget.grant();
      if (wait) await wait;
      text = await mapTextParts(text, (p) => stage.run(p, input));
    }
    const { text: guarded, restore } = protectRaw(text);
    return segmentText(guarded, this.segmentOptions).map(restore);
  }
}

/** One segment through the per-segment stages, each step granted by the turn budget (see segments()). */
async function runSegmentStages(segment: string, stages: Stage[], ctx: FrontEndInput): Promise<string> {
  let s = segment;
  for (const stage of stages) {
    const wait = turnBudget.grant();
    if (wait) await wait;
    s = await stage.run(s, ctx);
  }
  return s;
}

export { normalizeText, segmentText };
