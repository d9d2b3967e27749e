/**
 * SynthesisStream: a streaming synthesis job of the addon (espeak or HTS) as an object-mode Node
 * Readable of `{ pcm, info }` (SpeechChunk: PCM16LE mono and what the engine reports of it), with
 * backpressure wired to the native job (a consumer that stops reading makes synthesis wait;
 * destroying the stream cancels it). The stream ends after the last chunk.
 */
import { Readable } from 'node:stream';
import { fromNative, type CallSite } from './errors.js';
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

/**
 * Called once per chunk (PCM16LE mono at sampleRate, an external Buffer), then
 * once with chunk = null and info.final = true; err is set on failure or, with
 * code SAWT_ENGINE_CANCELLED, after cancel().
 */
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
    try {
      this.#handle = create((err, chunk, info) =>
        this.#onEvent(err, chunk, info, callSite),
      );
    } catch (error) {
      throw fromNative(error, callSite, 'SAWT_ENGINE_INVALID_ARGUMENT');
    }
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
