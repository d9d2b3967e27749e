/** Per-character timings of speech: the one builder both transports use. */
import type { Alignment } from '@sawt/protocol';
import type { ChunkInfo } from './services/index.js';

export type { Alignment };

export interface AlignmentOptions {
  /** true: all takes joined give back the text exactly as sent; false (the WebSocket's default): words joined by one space. */
  exact?: boolean;
  /** Added to every time: audio a decoder plays before the first sample (an MP3 encoder's delay). */
  offsetMs?: number;
}

/**
 * Per-character timings for one synthesis from the engine's word timings: a word's duration (to the
 * next spoken word, or the chunk's end) is spread evenly over its characters; the whitespace before it
 * lasts 0 ms, as do words nothing was spoken for.
 */
export class AlignmentBuilder {
  /** Each word with the whitespace before it. */
  private readonly words: Array<{ before: string; word: string }>;
  private readonly trailing: string;
  private readonly exact: boolean;
  private readonly offsetMs: number;
  private wordIndex = 0;
  private chunkStartMs = 0;
  private finished = false;
  private pending: Alignment = { chars: [], charStartTimesMs: [], charDurationsMs: [] };

  constructor(text: string, private readonly sampleRate: number, options: AlignmentOptions = {}) {
    this.exact = options.exact ?? false;
    this.offsetMs = options.offsetMs ?? 0;
    this.words = [];
    let last = 0;
    for (const m of text.matchAll(/\S+/gu)) {
      this.words.push({ before: text.slice(last, m.index), word: m[0] });
      last = m.index + m[0].length;
    }
    this.trailing = this.words.length ? text.slice(last) : text;
  }

  private push(c: string, startMs: number, durationMs: number): void {
    const s = startMs + this.offsetMs;
    this.pending.chars.push(c);
    this.pending.charStartTimesMs.push(Math.round(s));
    // Exact: whole-ms ends that never pass the next start (the last character ends within the audio).
    this.pending.charDurationsMs.push(this.exact ? Math.round(s + durationMs) - Math.round(s) : Math.round(durationMs));
  }

  private word(w: { before: string; word: string }, startMs: number, endMs: number): void {
    const chars = [...w.word];
    const per = Math.max(0, endMs - startMs) / chars.length;
    if (this.exact) for (const c of w.before) this.push(c, startMs, 0);
    else if (this.pending.chars.length) this.push(' ', startMs, 0);
    chars.forEach((c, k) => this.push(c, startMs + k * per, per));
  }

  /** Adds the words of the next chunk of the audio. */
  add(info: ChunkInfo): void {
    const chunkMs = (info.samples / this.sampleRate) * 1000;
    const ws = info.words;
    for (let i = 0; i < ws.length; i++) {
      const k = ws[i]!.sourceWord ?? this.wordIndex;
      if (k < this.wordIndex) continue; // one more spoken word of a word already timed
      let next = i + 1;
      while (next < ws.length && ws[next]!.sourceWord === k) next++;
      const start = this.chunkStartMs + (this.exact ? Math.min(ws[i]!.audioMs, chunkMs) : ws[i]!.audioMs);
      const endMs = next < ws.length ? ws[next]!.audioMs : chunkMs;
      // Exact: clamped into the chunk, so that no character ends past the audio.
      const end = this.chunkStartMs + (this.exact ? Math.min(Math.max(ws[i]!.audioMs, endMs), chunkMs) : endMs);
      while (this.wordIndex < k && this.wordIndex < this.words.length) this.word(this.words[this.wordIndex++]!, start, start);
      const w = this.words[this.wordIndex];
      if (w === undefined) break;
      this.wordIndex++;
      this.word(w, start, end);
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

  /** take(), after (exact) placing the characters not timed yet at the end of the audio with no duration. */
  finish(): Alignment | null {
    if (this.exact && !this.finished) {
      this.finished = true;
      const end = this.chunkStartMs;
      while (this.wordIndex < this.words.length) this.word(this.words[this.wordIndex++]!, end, end);
      for (const c of this.trailing) this.push(c, end, 0);
    }
    return this.take();
  }
}
