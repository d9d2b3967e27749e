import { Readable } from 'node:stream';
import type { SpeechStream } from '@sawt/core';
import type { ChunkInfo } from './native/index.js';

/**
 * One speech stream made of two played one after the other: `head` (synthesis of the first
 * segment, started at once) and the stream `tail()` gives (the other segments, started once
 * `head` has ended, so it never competes with it). Chunks and chunk-info pass through in order;
 * chunk-info segment numbers of the tail continue those of the head, and only the tail's final
 * event is passed on. Backpressure reaches the stream being read; destroying this stream
 * destroys it and never starts the tail. `tail` returning null: nothing follows the head.
 */
export class SpeechSequence extends Readable {
  readonly sampleRate: number | undefined;
  #current: SpeechStream | null = null;
  #segmentBase = 0;

  constructor(head: SpeechStream, private readonly tail: () => Promise<SpeechStream | null>) {
    super();
    this.sampleRate = (head as { sampleRate?: number }).sampleRate;
    this.#follow(head, true);
  }

  #follow(source: SpeechStream, isHead: boolean): void {
    this.#current = source;
    let lastSegment = -1;
    source.on('chunk-info', (info: ChunkInfo) => {
      if (this.destroyed) return;
      lastSegment = Math.max(lastSegment, info.segment);
      if (isHead && info.final) return;
      this.emit('chunk-info', { ...info, segment: info.segment + this.#segmentBase });
    });
    source.on('data', (chunk: Buffer) => {
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
          else {
            this.emit('chunk-info', { segment: this.#segmentBase, final: true, segmentEnd: true, samples: 0, words: [] } satisfies ChunkInfo);
            this.push(null);
          }
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
