import { Readable } from 'node:stream';
import type { SpeechChunk, SpeechStream } from './services/index.js';

/** What watches a speech stream's chunks as they are generated (samples, first audio, delivery). */
export type SpeechObserver = (chunk: SpeechChunk) => void;

/**
 * The one speech stream: `produce`'s chunks pulled as the consumer reads; destroying it aborts `signal`
 * at once (the generator may be waiting on native work) and returns the generator.
 */
export class GeneratedSpeech extends Readable {
  readonly #abort = new AbortController();
  readonly #chunks: AsyncIterator<SpeechChunk>;
  readonly #observers: SpeechObserver[] = [];
  #pulling = false;

  constructor(produce: (signal: AbortSignal) => AsyncIterable<SpeechChunk>) {
    // Object mode counts chunks, and a chunk is typically a whole sentence or 100 ms or more of
    // audio: one waiting chunk keeps the consumer fed while the next is generated.
    super({ objectMode: true, highWaterMark: 1 });
    this.#chunks = produce(this.#abort.signal)[Symbol.asyncIterator]();
  }

  /**
   * Calls `observer` with every chunk from now on, as it is generated, and starts generating if it
   * has not (one chunk ahead): a watched stream's first audio is made while its consumer is still
   * getting ready, as the paid path's admission (the wallet reservation) is. Read only once admitted,
   * its native work started only then (8 concurrent requests: 25–35 ms after the request).
   */
  observe(observer: SpeechObserver): this {
    this.#observers.push(observer);
    this.read(0);
    return this;
  }

  override _read(): void {
    if (!this.#pulling) void this.#pull();
  }

  async #pull(): Promise<void> {
    this.#pulling = true;
    try {
      for (;;) {
        const next = await this.#chunks.next();
        if (this.destroyed) return;
        if (next.done) {
          this.push(null);
          return;
        }
        for (const observe of this.#observers) observe(next.value);
        if (!this.push(next.value)) return;
      }
    } catch (error) {
      this.destroy(error as Error);
    } finally {
      this.#pulling = false;
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#abort.abort();
    this.#chunks.return?.().catch(() => {});
    callback(error);
  }
}

/** A speech stream of `produce`'s chunks (see GeneratedSpeech). */
export function speechStream(produce: (signal: AbortSignal) => AsyncIterable<SpeechChunk>): GeneratedSpeech {
  return new GeneratedSpeech(produce);
}

/** `source`'s chunks, for a generator to pass on; aborting `signal` destroys `source`. */
export function chunksOf(source: SpeechStream, signal: AbortSignal): AsyncIterable<SpeechChunk> {
  if (signal.aborted) source.destroy();
  else signal.addEventListener('abort', () => source.destroy(), { once: true });
  return source as AsyncIterable<SpeechChunk>;
}

/** `stream` as a GeneratedSpeech that observers can watch (itself when it is one). */
export function observable(stream: SpeechStream): GeneratedSpeech {
  return stream instanceof GeneratedSpeech ? stream : speechStream((signal) => chunksOf(stream, signal));
}

/** The PCM of a speech stream as a byte stream (for a file, a player or an HTTP body). */
export function speechPcm(stream: SpeechStream): Readable {
  return Readable.from(pcmOf(stream), { objectMode: false }).once('close', () => stream.destroy());
}

async function* pcmOf(stream: SpeechStream): AsyncGenerator<Buffer> {
  for await (const { pcm } of stream as AsyncIterable<SpeechChunk>) yield pcm;
}

/** Reads a speech stream to its end: its whole PCM in one Buffer. */
export async function speechAudio(stream: SpeechStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const pcm of pcmOf(stream)) parts.push(pcm);
  return Buffer.concat(parts);
}
