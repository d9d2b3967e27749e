/**
 * Per-character timings of speech (the WebSocket's audio messages, the HTTP with-timestamps
 * routes): the one builder both transports use.
 */
import type { Alignment } from '@sawt/protocol';
import type { ChunkInfo } from './services/index.js';

export type { Alignment };

export interface AlignmentOptions {
  /**
   * true: the characters are the text exactly as sent (leading, trailing and repeated whitespace
   * kept; words the engine never reported still appear, at the end of the audio with no duration
   * once finish() is called), so all the takes joined give back the text. false (the WebSocket's
   * default): the words separated by one space, a take never starting with one.
   */
  exact?: boolean;
  /** Added to every time: audio a decoder plays before the first sample (an MP3 encoder's delay). */
  offsetMs?: number;
}

/**
 * Per-character timings for the chunks of one synthesis, from the start of its audio. The engine
 * reports word timings with each chunk (info.words: audioMs from the start of the chunk), each
 * naming the word of the text it reads (sourceWord), else matched in order to the
 * whitespace-separated words of the text. A word's duration (up to the next spoken word that reads
 * another word, or the chunk's end) is spread evenly over its characters; the whitespace before a
 * word starts with it and lasts 0 ms, as do words nothing was spoken for (a dash alone). Words the
 * engine never reported get no timings (exact: they come at the end, from finish()).
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

  /**
   * Exact: once the audio ended, the characters not timed yet (words the engine did not report,
   * trailing whitespace) at the end of the audio with no duration; then take(). Otherwise: take().
   */
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
