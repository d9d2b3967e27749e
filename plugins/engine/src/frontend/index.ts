import { normalizeText } from './normalize.js';
import { segmentText, type SegmentOptions } from './segment.js';

/**
 * The text front end: ordered stages from raw text to engine segments. Each
 * stage is a small async function, so diacritization (ONNX, off the main
 * thread), pronunciation lexicons and dialect rules slot in as further stages
 * without touching the engines.
 */
export interface FrontEndInput {
  text: string;
  dialect: string | null;
}

export interface FrontEndResult {
  /** Text pieces ready for the engine, in order. */
  segments: string[];
  /** True when the segments carry raw phoneme input ([[...]]). */
  phonemeInput: boolean;
}

export type TextStage = (text: string, ctx: FrontEndInput) => string | Promise<string>;

export class TextFrontEnd {
  private readonly stages: Array<{ name: string; run: TextStage }> = [{ name: 'normalize', run: normalizeText }];

  constructor(private readonly segmentOptions: SegmentOptions = {}) {}

  /** Adds a stage after the existing ones (e.g. 'diacritize', 'dialect'). */
  addStage(name: string, run: TextStage): this {
    this.stages.push({ name, run });
    return this;
  }

  stageNames(): string[] {
    return this.stages.map((s) => s.name);
  }

  async process(input: FrontEndInput): Promise<FrontEndResult> {
    let text = input.text;
    for (const stage of this.stages) text = await stage.run(text, input);
    return { segments: segmentText(text, this.segmentOptions), phonemeInput: /\[\[.*?\]\]/su.test(text) };
  }
}

export { normalizeText, segmentText };
