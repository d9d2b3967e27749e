import { errors, meetsTextMinimum, TEXT_TOO_SHORT_MESSAGE } from '@sawt/core';

/** The synthesizer's words for text with no letter or digit (HTTP answers them with the same 40001). */
export const NOTHING_TO_SPEAK = 'text contains nothing that can be spoken';

export interface TextChunkerOptions {
  /** Buffer length above which text without a sentence end is cut: first piece, second, then every later one. */
  lengthSchedule: readonly number[];
  /** try_trigger_generation cuts once the buffered whole words are at least this long. */
  tryTriggerMin: number;
}

export const DEFAULT_CHUNKING: TextChunkerOptions = { lengthSchedule: [50, 120, 200], tryTriggerMin: 20 };

const SENTENCE_END = /[.!?؟\n…]/gu;

/** A <break …/> tag (plain text's one markup), or one cut off at the end of the buffer. */
const BREAK_TAG = /<break\b(?:"[^"]*(?:"|$)|'[^']*(?:'|$)|[^'">])*(?:>|$)/giu;

/** `text` with its <break> tags blanked out (U+FFFF, same length): no cut falls inside one, and a tag split across messages waits for its end. */
export function maskBreaks(text: string): string {
  return text.includes('<') ? text.replace(BREAK_TAG, (m) => '\uFFFF'.repeat(m.length)) : text;
}

/** Whether `s` has something to speak (a letter or a digit). */
export function hasSpeakable(s: string): boolean {
  return /[\p{L}\p{N}]/u.test(s);
}

/** Index of the last whitespace character (the end of the last whole word), or -1. */
function lastWordCut(s: string): number {
  for (let i = s.length - 1; i >= 0; i--) if (/\s/u.test(s[i]!)) return i;
  return -1;
}

/** What a session cuts its text with: plain text (TextChunker) or an SSML stream (SsmlChunker). */
export interface Chunker {
  /** Characters buffered, not yet cut into a piece. */
  readonly buffered: number;
  add(text: string): void;
  /** The next piece to synthesize if the buffer holds one now, else null. */
  next(tryNow?: boolean): string | null;
  /** Everything buffered as the last piece of a flush (null: nothing to speak); 40001 when the flush's text fails the text rule. */
  flush(): string | null;
  clear(): void;
}

/** What both chunkers keep: the text not cut yet, the text since the last flush (the text rule's) and the pieces cut (the schedule's index). */
export abstract class ChunkerBuffer {
  /** Text received and not cut into a piece yet. */
  protected buffer = '';
  /** Everything received since the last flush: the text rule applies to it. */
  protected sinceFlush = '';
  /** Pieces cut so far (the length schedule's index). */
  protected pieces = 0;

  constructor(protected readonly options: TextChunkerOptions = DEFAULT_CHUNKING) {}

  /** Characters buffered, not yet cut into a piece. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Adds text to the buffer. */
  add(text: string): void {
    this.buffer += text;
    this.sinceFlush += text;
  }
}

/**
 * The text-chunking policy of a WebSocket session (cutPosition): punctuation alone stays with the text
 * that follows, and no cut falls inside a <break> tag. A flush cuts everything, after the text rule.
 */
export class TextChunker extends ChunkerBuffer implements Chunker {
  /** The next piece to synthesize if the buffer holds one now (`tryNow`: try_trigger_generation), else null. */
  next(tryNow = false): string | null {
    const cut = this.#cut(tryNow);
    if (cut <= 0) return null;
    const piece = this.buffer.slice(0, cut);
    if (!hasSpeakable(maskBreaks(piece))) return null; // punctuation or a <break> only: kept with the next text
    this.buffer = this.buffer.slice(cut);
    this.pieces++;
    return piece;
  }

  /** Everything buffered as the last piece (null: nothing to speak nor pause for); 40001 when the text since the last flush fails the text rule. */
  flush(): string | null {
    const whole = this.sinceFlush;
    const rest = this.buffer;
    this.clear();
    if (!meetsTextMinimum(whole)) throw errors.validation(TEXT_TOO_SHORT_MESSAGE);
    if (!hasSpeakable(maskBreaks(whole))) throw errors.validation(NOTHING_TO_SPEAK);
    // A rest without words is a piece when it holds a <break> (silence, nothing billed).
    if (!hasSpeakable(maskBreaks(rest)) && !/<break\b/iu.test(rest)) return null;
    this.pieces++;
    return rest;
  }

  /** Drops everything buffered (clear, or a session that stops generating). */
  clear(): void {
    this.buffer = '';
    this.sinceFlush = '';
  }

  /** Where the buffer is cut now (0 or -1: not yet). */
  #cut(tryNow: boolean): number {
    return cutPosition(maskBreaks(this.buffer), this.pieces, tryNow, this.options);
  }
}

/**
 * Where buffered text is cut now (0 or -1: not yet), the `pieces`-th cut: after the last sentence end; else
 * at the last whole word once over the length schedule or, `tryNow`, tryTriggerMin. `measure`: SSML's length.
 */
export function cutPosition(b: string, pieces: number, tryNow: boolean, options: TextChunkerOptions = DEFAULT_CHUNKING, measure: (s: string) => number = (s) => s.length): number {
  let lastEnd = -1;
  for (const m of b.matchAll(SENTENCE_END)) lastEnd = m.index!;
  if (lastEnd >= 0) return lastEnd + 1;
  const { lengthSchedule, tryTriggerMin } = options;
  const limit = lengthSchedule[Math.min(pieces, lengthSchedule.length - 1)]!;
  const length = measure(b);
  let cut = -1;
  if (length > limit || (tryNow && measure(b.trim()) >= tryTriggerMin)) cut = lastWordCut(b);
  if (cut >= 0 && tryNow && length <= limit && measure(b.slice(0, cut).trim()) < tryTriggerMin) cut = -1;
  return cut;
}
