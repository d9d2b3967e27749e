import type { TextPipeline, TextPipelineOptions, TextStageName } from '@sawt/core';
import { removeKeepMarks, tanweenBeforeAlif, type Diacritizer } from './diacritize.js';
import type { Dialect } from './dialects.js';
import { TextFrontEnd, type FrontEndInput } from './index.js';
import { LatinReader, type LatinOptions } from './latin/index.js';
import { Lexicon } from './lexicon.js';
import { dialectPhonemes } from './phonemes.js';
import { guardPhonemeWords, htsPhonesOf, parsePhonemePassages } from './phoneme-passages.js';
import { htsPhoneSpan } from './latin/phone-span.js';
import { RAW_SPAN } from './raw.js';
import { spellForEspeak } from './espeak-spelling.js';
import { readsMarkup, runStageOverSteps } from './ssml/stages.js';
import type { SegmentOptions } from './segment.js';

export interface PipelineParts {
  segment?: SegmentOptions;
  /** Null when the model file is absent: text is then read as written. */
  diacritizer: Diacritizer | null;
  dialects: Map<string, Dialect>;
  /** Operator lexicon (engine option `lexicon`); wins over dialect lexicons. */
  lexicon?: Record<string, string>;
  /** Latin-script words inside Arabic (engine option `latin`). */
  latin?: LatinOptions;
  /** Models whose phones `phonemize` can show (TextPipelineOptions.model): model_id → its back end's phones. */
  models?: {
    phonesOf(modelId: string): 'espeak' | 'hts' | null | undefined;
    known(): string[];
    /** Front-end output (diacritized text) → the HTS voice's phones after the dialect's rules. */
    htsPhones(text: string, dialect: Dialect | undefined): string;
  };
}

/** The engine's front end (normalize → lexicon → segment → diacritize → latin → phonemize), its stages open to operators. */
export class EngineTextPipeline implements TextPipeline {
  readonly frontEnd: TextFrontEnd;
  private readonly lexicons = new Map<string, Lexicon>();
  readonly latin: LatinReader;

  constructor(private readonly parts: PipelineParts) {
    const { dialects } = parts;
    this.latin = new LatinReader(parts.latin);
    // The diacritizer is read at each call: the engine sets it once it has loaded (useDiacritizer).
    const plain = (text: string) => removeKeepMarks(tanweenBeforeAlif(text));
    this.frontEnd = new TextFrontEnd(parts.segment)
      .addStage('lexicon', (text, ctx) => this.lexicon(ctx.dialect).apply(text))
      .addStage('diacritize', (text, ctx) => {
        const diacritizer = this.parts.diacritizer;
        // A colloquial dialect's voice reads its words in pausal form (dialects.ts, pausalForm).
        const dialect = ctx.dialect ? dialects.get(ctx.dialect) : undefined;
        return diacritizer && ctx.diacritize !== false ? diacritizer.diacritize(text, { urgent: ctx.urgent === true, background: ctx.background === true, dialect, before: ctx.before }) : plain(text);
      }, {
        perSegment: true,
        batch: async (texts, ctx, continues) => {
          const diacritizer = this.parts.diacritizer;
          const dialect = ctx.dialect ? dialects.get(ctx.dialect) : undefined;
          // the segments of one sentence are read together (diacritizeMany's continues)
          return diacritizer && ctx.diacritize !== false ? diacritizer.diacritizeMany(texts, { dialect, continues }) : texts.map(plain);
        },
      })
      .addStage('latin', (text, ctx) => (ctx.phonemes ? this.latin.read(text, ctx.phonemes) : text), { perSegment: true })
      .addStage(
        'phonemize',
        async (text, ctx) => {
          // The HTS voice reads phone spans: [[x-sawt]] passages become its phones (checked beforehand by htsInventory).
          if (ctx.phonemes === 'hts') return passagesAsHtsSpans(text);
          if (ctx.phonemes !== 'espeak') return text;
          const spelled = await spellForEspeak(text);
          const dialect = ctx.dialect ? dialects.get(ctx.dialect) : undefined;
          // Whatever stage wrote a passage (the client, a dialect rule, the Latin reader), no word of it
          // reaches espeak longer than its word buffer takes (phoneme-passages.ts).
          if (!ctx.showPhonemes && !dialect?.hasRules) return guardPhonemeWords(spelled);
          return guardPhonemeWords(await dialectPhonemes(spelled, dialect, { always: ctx.showPhonemes === true, urgent: ctx.urgent === true }));
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
    if (readsMarkup(opts)) return (await this.runMany(stage, [text], opts))[0]!;
    const input = this.input(text, opts);
    return this.phones(stage, input, (await this.frontEnd.runManyUntil([input], stage))[0]!);
  }

  async runMany(stage: TextStageName, texts: string[], opts: TextPipelineOptions = {}): Promise<string[]> {
    // SSML or dictionary rules: the stage runs on each spoken step of the texts as a request reads them (ssml/stages.ts).
    if (readsMarkup(opts)) return runStageOverSteps(texts, opts, (spoken) => this.runMany(stage, spoken, { dialect: opts.dialect ?? null, model: opts.model ?? null }));
    const inputs = texts.map((text) => this.input(text, opts));
    const outputs = await this.frontEnd.runManyUntil(inputs, stage);
    return outputs.map((out, k) => this.phones(stage, inputs[k]!, out));
  }

  /** The HTS voice's phones for an HTS model's phonemize; every other output as the stage gave it. */
  private phones(stage: TextStageName, input: FrontEndInput, output: string): string {
    if (stage !== 'phonemize' || input.phonemes !== 'hts' || !this.parts.models) return output;
    return this.parts.models.htsPhones(output, input.dialect ? this.parts.dialects.get(input.dialect) : undefined);
  }

  private input(text: string, opts: TextPipelineOptions): FrontEndInput {
    const dialect = opts.dialect ?? null;
    if (dialect !== null && !this.parts.dialects.has(dialect)) throw new Error(`unknown dialect '${dialect}' (known: ${this.dialects().join(', ')})`);
    let phonemes: 'espeak' | 'hts' | null = 'espeak';
    if (opts.model != null) {
      const phones = this.parts.models?.phonesOf(opts.model);
      if (phones === undefined) throw new Error(`unknown model '${opts.model}' (known: ${(this.parts.models?.known() ?? []).join(', ')})`);
      phonemes = phones;
    }
    return { text, dialect, diacritize: true, phonemes, showPhonemes: true };
  }
}

/** Every [[ … ]] passage of `text` as HTS phone spans, one per word, set apart from the words around it. */
export function passagesAsHtsSpans(text: string): string {
  if (!text.includes('[[')) return text;
  return text.replace(RAW_SPAN, (span) => {
    const words = parsePhonemePassages(span)[0]?.words ?? [];
    const spans = words.map(htsPhonesOf).filter((p) => p.length > 0).map(htsPhoneSpan);
    return spans.length ? ` ${spans.join(' ')} ` : ' ';
  });
}
