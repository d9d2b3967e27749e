/** A native synthesis job (espeak or HTS) as an object-mode Readable of `{ pcm, info }`; backpressure pauses the job, destroy cancels it. */
import { Readable } from 'node:stream';
import { callNativeSync, fromNative, type CallSite } from './errors.js';
import { loadBinding } from './load.js';

export interface WordTiming {
  /** Start of the word in the segment text, in UTF-16 code units (JS string index). */
  textOffset: number;
  /** Length of the word in UTF-16 code units. */
  length: number;
  /** When the word starts, in ms from the start of the chunk that carries it. */
  audioMs: number;
}

/** What the engine reports with each chunk (a speech stream's ChunkInfo), and `final` on its last event. */
export interface NativeChunkInfo {
  segment: number;
  /** True only on the last event, which carries no audio (streams end instead of passing it on). */
  final: boolean;
  /** True on the last chunk of a segment (and on the final event). */
  segmentEnd: boolean;
  /** Samples in this chunk (0 on the final event). */
  samples: number;
  words: WordTiming[];
}

/** Called per chunk (an external Buffer), then once with chunk null and info.final; err on failure or after cancel(). */
export type SynthesisEventHandler = (err: NativeError | null, chunk: Buffer | null, info: NativeChunkInfo) => void;

/** Credit-style flow control: the job waits between chunks while paused. */
export interface SynthesisHandle {
  pause(): void;
  resume(): void;
  /** Stops at the next chunk boundary; the final event carries SAWT_ENGINE_CANCELLED. */
  cancel(): void;
}

export interface NativeError extends Error {
  code: string;
}

/** What every streaming engine of the addon shares (chunk_event.h). */
export interface StreamBinding {
  /** Audio chunks (espeak and HTS synthesis) made and not yet freed: after a garbage collection, what JS still holds. */
  pcmInFlight(): { chunks: number; bytes: number };
}

/** One chunk of a synthesis stream: the audio and what the engine reports of it. */
export interface SynthesisChunk {
  /** PCM16LE mono at the stream's sampleRate. */
  pcm: Buffer;
  info: NativeChunkInfo;
}

export class SynthesisStream extends Readable {
  readonly sampleRate: number;
  #handle: SynthesisHandle | undefined;
  #paused = false;
  #finished = false;

  /** @internal Use synthesizeStream(). */
  constructor(
    options: { sampleRate: number },
    callSite: CallSite,
    create: (onEvent: SynthesisEventHandler) => SynthesisHandle,
  ) {
    // Object mode counts chunks: one waiting chunk (a sentence, or chunkMs of audio) pauses the job.
    super({ objectMode: true, highWaterMark: 1 });
    this.sampleRate = options.sampleRate;
    this.#handle = callNativeSync(callSite, 'SAWT_ENGINE_INVALID_ARGUMENT', () => create((err, chunk, info) => this.#onEvent(err, chunk, info, callSite)));
  }

  #onEvent(err: NativeError | null, chunk: Buffer | null, info: NativeChunkInfo, callSite: CallSite): void {
    if (info.final) {
      this.#finished = true;
      this.#handle = undefined;
    }
    if (this.destroyed) return;
    if (err) {
      this.destroy(fromNative(err, callSite, 'SAWT_ENGINE_ESPEAK'));
      return;
    }
    if (chunk && !this.push({ pcm: chunk, info } satisfies SynthesisChunk) && !this.#paused) {
      this.#paused = true;
      this.#handle?.pause();
    }
    if (info.final) this.push(null);
  }

  override _read(): void {
    if (this.#paused) {
      this.#paused = false;
      this.#handle?.resume();
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.#finished) this.#handle?.cancel();
    this.#handle = undefined;
    callback(error);
  }
}

/** Synthesis audio (espeak and HTS chunks) in native memory that JavaScript has not yet freed. */
export function pcmInFlight(): { chunks: number; bytes: number } {
  return loadBinding<StreamBinding>().pcmInFlight();
}
