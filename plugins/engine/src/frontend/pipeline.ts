import type { TextPipeline, TextPipelineOptions, TextStageName } from '@sawt/core';
import { removeKeepMarks, type Diacritizer } from './diacritize.js';
import type { Dialect } from './dialects.js';
import { TextFrontEnd, type FrontEndInput } from './index.js';
import { Lexicon } from './lexicon.js';
import { dialectPhonemes } from './phonemes.js';
import type { SegmentOptions } from './segment.js';

export interface PipelineParts {
  segment?: SegmentOptions;
  /** Null when the model file is absent: text is then read as written. */
  diacritizer: Diacritizer | null;
  dialects: Map<string, Dialect>;
  /** Operator lexicon (engine option `lexicon`); wins over dialect lexicons. */
  lexicon?: Record<string, string>;
}

/**
 * Builds the engine's front end: normalize → lexicon → (segment) → diacritize
 * → phonemize + dialect rules, and exposes its stages to operators.
 */
export class EngineTextPipeline implements TextPipeline {
  readonly frontEnd: TextFrontEnd;
  private readonly lexicons = new Map<string, Lexicon>();

  constructor(private readonly parts: PipelineParts) {
    const { dialects } = parts;
    this.frontEnd = new TextFrontEnd(parts.segment)
      .addStage('lexicon', (text, ctx) => this.lexicon(ctx.dialect).apply(text))
      .addStage('diacritize', (text, ctx) => {
        const diacritizer = this.parts.diacritizer;
        return diacritizer && ctx.diacritize !== false ? diacritizer.diacritize(text) : removeKeepMarks(text);
      }, { perSegment: true })
      .addStage(
        'phonemize',
        (text, ctx) => {
          if (ctx.phonemes !== 'espeak') return text;
          const dialect = ctx.dialect ? dialects.get(ctx.dialect) : undefined;
          if (!ctx.showPhonemes && !dialect?.hasRules) return text;
          return dialectPhonemes(text, dialect, { always: ctx.showPhonemes === true });
        },
        { perSegment: true },
      );
  }

  get stages(): TextStageName[] {
    return ['normalize', 'diacritize', 'phonemize'];
  }

  get diacritizerLoaded(): boolean {
    return this.parts.diacritizer !== null;
  }

  /** Sets the diacritizer once it has loaded (the engine loads it at start, not at registration). */
  useDiacritizer(diacritizer: Diacritizer): void {
    this.parts.diacritizer = diacritizer;
  }

  release(): void {
    this.parts.diacritizer?.release();
  }

  dialects(): string[] {
    return [...this.parts.dialects.keys()].sort();
  }

  lexicon(dialect: string | null): Lexicon {
    const key = dialect ?? '';
    let lex = this.lexicons.get(key);
    if (!lex) {
      lex = new Lexicon(this.parts.lexicon, dialect ? this.parts.dialects.get(dialect)?.lexicon : undefined);
      this.lexicons.set(key, lex);
    }
    return lex;
  }

  async run(stage: TextStageName, text: string, opts: TextPipelineOptions = {}): Promise<string> {
    const dialect = opts.dialect ?? null;
    if (dialect !== null && !this.parts.dialects.has(dialect)) throw new Error(`unknown dialect '${dialect}' (known: ${this.dialects().join(', ')})`);
    const input: FrontEndInput = { text, dialect, diacritize: true, phonemes: 'espeak', showPhonemes: true };
    return this.frontEnd.runUntil(input, stage);
  }
}
