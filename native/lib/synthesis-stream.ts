/**
 * synthesizeStream(): espeak-ng synthesis as an object-mode Node Readable of
 * `{ pcm, info }` (SpeechChunk: PCM16LE mono and what the engine reports of it),
 * with backpressure wired to the native job (a consumer that stops reading makes
 * synthesis wait; destroying the stream cancels it). The stream ends after the
 * last chunk.
 */
import { Readable } from 'node:stream';
import { nativeAddon, type NativeChunkInfo, type NativeError, type NativeSynthesisOptions, type SynthesisEventHandler, type SynthesisHandle } from './addon.js';
import { captureCallSite, fromNative, type CallSite } from './errors.js';
import { validateSynthesisOptions, type SynthesisOptions } from './validate.js';

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
    create: (onEvent: SynthesisEventHandler) => SynthesisHandle = (onEvent) => nativeAddon().createSynthesis(options as NativeSynthesisOptions, onEvent),
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

/**
 * Starts synthesizing `segments` (already normalized, usually sentences) with
 * espeak-ng; audio is resampled to `sampleRate` (default 24000). Throws
 * EngineError SAWT_ENGINE_INVALID_ARGUMENT on a bad option; later failures
 * destroy the stream with an EngineError (e.g. SAWT_ENGINE_ESPEAK for an
 * unknown voice).
 */
export function synthesizeStream(options: SynthesisOptions): SynthesisStream {
  const callSite = captureCallSite();
  return new SynthesisStream(validateSynthesisOptions(options), callSite);
}

/** Synthesis audio (espeak and HTS chunks) in native memory that JavaScript has not yet freed. */
export function pcmInFlight(): { chunks: number; bytes: number } {
  return nativeAddon().pcmInFlight();
}
