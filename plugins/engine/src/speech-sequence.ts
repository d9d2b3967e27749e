import { Readable } from 'node:stream';
import { SPEECH_STREAM_OPTIONS, type SpeechChunk, type SpeechStream } from '@sawt/core';

/**
 * One speech stream made of two played one after the other: `head` (synthesis of the first
 * segment, started at once) and the stream `tail()` gives (the other segments, started once
 * `head` has ended, so it never competes with it). Chunks pass through in order; the segment
 * numbers of the tail's chunks continue those of the head. Backpressure reaches the stream being
 * read; destroying this stream destroys it and never starts the tail. `tail` returning null:
 * nothing follows the head.
 */
export class SpeechSequence extends Readable {
  readonly sampleRate: number | undefined;
  #current: SpeechStream | null = null;
  #segmentBase = 0;

  constructor(head: SpeechStream, private readonly tail: () => Promise<SpeechStream | null>) {
    super(SPEECH_STREAM_OPTIONS);
    this.sampleRate = (head as { sampleRate?: number }).sampleRate;
    this.#follow(head, true);
  }

  #follow(source: SpeechStream, isHead: boolean): void {
    this.#current = source;
    let lastSegment = 0;
    source.on('data', ({ pcm, info }: SpeechChunk) => {
      if (this.destroyed) return;
      lastSegment = Math.max(lastSegment, info.segment);
      const chunk: SpeechChunk = { pcm, info: this.#segmentBase ? { ...info, segment: info.segment + this.#segmentBase } : info };
      if (!this.push(chunk)) source.pause();
    });
    source.once('error', (error) => this.destroy(error));
    source.once('end', () => {
      if (this.destroyed) return;
      if (!isHead) {
        this.push(null);
        return;
      }
      this.#segmentBase += lastSegment + 1;
      this.tail().then(
        (next) => {
          if (this.destroyed) next?.destroy();
          else if (next) this.#follow(next, false);
          else this.push(null);
        },
        (error: Error) => this.destroy(error),
      );
    });
  }

  override _read(): void {
    this.#current?.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#current?.destroy();
    this.#current = null;
    callback(error);
  }
}
