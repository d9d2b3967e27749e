import type { ChunkInfo } from '@sawt/core';
import type { Alignment } from './messages.js';

/**
 * Per-character timings for the audio messages of one piece, relative to the start of the piece's
 * audio. The engine reports word timings with each chunk (info.words: audioMs from the start of
 * the chunk); they are matched in order to the whitespace-separated words of the piece text, and
 * each word's duration (up to the next word, or the chunk's end) is spread evenly over its
 * characters. Text normalization may change the word count: extra engine words are ignored, and
 * words the engine never reported get no timings.
 */
export class AlignmentBuilder {
  private readonly words: string[];
  private wordIndex = 0;
  private chunkStartMs = 0;
  private pending: Alignment = { chars: [], charStartTimesMs: [], charDurationsMs: [] };

  constructor(text: string, private readonly sampleRate: number) {
    this.words = text.trim() === '' ? [] : text.trim().split(/\s+/u);
  }

  /** Adds the words of the next chunk of the piece's audio. */
  add(info: ChunkInfo): void {
    const chunkMs = (info.samples / this.sampleRate) * 1000;
    const ws = info.words;
    for (let i = 0; i < ws.length; i++) {
      const word = this.words[this.wordIndex++];
      if (word === undefined) break;
      const start = ws[i]!.audioMs;
      const end = i + 1 < ws.length ? ws[i + 1]!.audioMs : chunkMs;
      const chars = [...word];
      const per = Math.max(0, end - start) / chars.length;
      if (this.pending.chars.length) {
        this.pending.chars.push(' ');
        this.pending.charStartTimesMs.push(Math.round(this.chunkStartMs + start));
        this.pending.charDurationsMs.push(0);
      }
      chars.forEach((c, k) => {
        this.pending.chars.push(c);
        this.pending.charStartTimesMs.push(Math.round(this.chunkStartMs + start + k * per));
        this.pending.charDurationsMs.push(Math.round(per));
      });
    }
    this.chunkStartMs += chunkMs;
  }

  /** The timings added since the last take (null: none). */
  take(): Alignment | null {
    if (!this.pending.chars.length) return null;
    const a = this.pending;
    this.pending = { chars: [], charStartTimesMs: [], charDurationsMs: [] };
    return a;
  }
}
