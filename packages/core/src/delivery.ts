import type { ServerResponse } from 'node:http';

/**
 * Whether a response's bytes all left this process (billing settles on true): a close can be noticed
 * before the final write callback, so an ended response with nothing buffered counts too.
 */
export function isDelivered(res: ServerResponse, sent?: { bytes: number; contentLength: number }): boolean {
  if (res.writableFinished || (res.writableEnded && res.writableLength === 0)) return true;
  // With a Content-Length the client may close once it has every byte, before the response ended.
  return sent !== undefined && sent.bytes >= sent.contentLength && res.writableLength === 0;
}

/** Resolves once the response finished or closed, with isDelivered() at that moment. */
export function whenDelivered(res: ServerResponse): Promise<boolean> {
  if (res.writableFinished || res.destroyed) return Promise.resolve(isDelivered(res));
  return new Promise((resolve) => {
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      resolve(isDelivered(res));
    };
    res.once('finish', done);
    res.once('close', done);
  });
}

/**
 * What a synthesis cut short is charged: the words (by the engine's word timings, else the model's
 * measured seconds per character) that start before the end of the delivered audio, whole, with the
 * spaces between them; any delivered audio pays at least the first word.
 */
export class DeliveryMeter {
  /** For each word of the trimmed text: billable characters up to its end, and before its start. */
  private readonly wordEnds: number[] = [];
  private readonly wordStarts: number[] = [];
  /** Sample at which each word the engine reported starts, in order. */
  private readonly starts: number[] = [];
  private generated = 0;

  constructor(text: string, private readonly sampleRate: number, private readonly secondsPerChar: number | null = null) {
    const trimmed = text.trim();
    let chars = 0;
    let at = 0;
    for (const m of trimmed.matchAll(/\S+/gu)) {
      chars += codePoints(trimmed.slice(at, m.index));
      this.wordStarts.push(chars);
      chars += codePoints(m[0]);
      this.wordEnds.push(chars);
      at = m.index + m[0].length;
    }
  }

  /** Billable characters of the whole text. */
  get totalChars(): number {
    return this.wordEnds[this.wordEnds.length - 1] ?? 0;
  }

  /** Samples generated so far. */
  get generatedSamples(): number {
    return this.generated;
  }

  /** Adds the next chunk of the audio, in order. */
  add(info: { samples: number; words: ReadonlyArray<{ audioMs: number; sourceWord?: number }> }): void {
    for (const w of info.words) {
      const at = this.generated + Math.round((w.audioMs * this.sampleRate) / 1000);
      if (w.sourceWord === undefined) this.starts.push(at);
      else while (this.starts.length <= w.sourceWord) this.starts.push(at); // (words nothing was spoken for start with the next)
    }
    this.generated += info.samples;
  }

  /** Billable characters for the first `deliveredSamples` samples of the audio (0 when none). */
  charsFor(deliveredSamples: number): number {
    if (deliveredSamples <= 0 || this.wordEnds.length === 0) return 0;
    if (this.starts.length === 0 && !this.secondsPerChar) return this.totalChars; // no way to place the words: the whole text
    // Word starts in samples (the engine's timings), else in characters (the measured pace).
    const [starts, end] = this.starts.length > 0 ? [this.starts, deliveredSamples] : [this.wordStarts, deliveredSamples / this.sampleRate / this.secondsPerChar!];
    let words = 0;
    while (words < starts.length && starts[words]! < end) words++;
    return this.wordEnds[Math.min(Math.max(words, 1), this.wordEnds.length) - 1]!;
  }
}

const codePoints = (s: string): number => [...s].length;
