import type { ServerResponse } from 'node:http';

/**
 * Whether a response's bytes all left this process. 'finish' says so; a socket
 * that closes right after the client read the last byte can be noticed before
 * the final write callback runs, so a response that was ended with nothing left
 * in its buffer counts as delivered too. Billing settles on true, releases on false.
 */
export function isDelivered(res: ServerResponse, sent?: { bytes: number; contentLength: number }): boolean {
  if (res.writableFinished || (res.writableEnded && res.writableLength === 0)) return true;
  // With a Content-Length the client may close as soon as it has every byte,
  // before the last write's 'end' reached the response: all bytes written and
  // none left buffered is delivery too.
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
 * What a synthesis cut short (client clear, disconnect, reset, the output cap) is charged: the
 * characters whose audio went out. The engine's word timings (each chunk's info.words, as the
 * WebSocket alignment uses them) place each word's start in the audio; each names the word of
 * the text it reads (sourceWord; a number read as several words starts at the first), else they
 * are matched in order to the whitespace-separated words of the text. The words that start before
 * the end of the delivered audio are charged whole (the word in progress is rounded up), with the
 * spaces between them; any delivered audio pays at least the first word. Without word timings the position comes
 * from the model's measured seconds per character, rounded up to the whole word the same way.
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
    let words: number;
    if (this.starts.length > 0) {
      words = 0;
      while (words < this.starts.length && this.starts[words]! < deliveredSamples) words++;
    } else if (this.secondsPerChar) {
      const chars = deliveredSamples / this.sampleRate / this.secondsPerChar;
      words = 0;
      while (words < this.wordStarts.length && this.wordStarts[words]! < chars) words++;
    } else {
      return this.totalChars; // no way to place the words: the whole text
    }
    return this.wordEnds[Math.min(Math.max(words, 1), this.wordEnds.length) - 1]!;
  }
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
