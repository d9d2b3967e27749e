/**
 * synthesizeStream(): espeak-ng synthesis as a Node Readable of PCM16LE mono
 * Buffers, with backpressure wired to the native job (a consumer that stops
 * reading makes synthesis wait; destroying the stream cancels it).
 *
 * Events besides the Readable ones:
 * - 'chunk-info' (ChunkInfo): for each chunk, emitted just before the chunk is
 *   pushed, and once more with final = true before the stream ends.
 */
import { Readable } from 'node:stream';
import { nativeAddon, type ChunkInfo, type NativeError, type NativeSynthesisOptions, type SynthesisEventHandler, type SynthesisHandle } from './addon.js';
import { captureCallSite, fromNative, type CallSite } from './errors.js';
import { validateSynthesisOptions, type SynthesisOptions } from './validate.js';

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
    super();
    this.sampleRate = options.sampleRate;
    try {
      this.#handle = create((err, chunk, info) =>
        this.#onEvent(err, chunk, info, callSite),
      );
    } catch (error) {
      throw fromNative(error, callSite, 'SAWT_ENGINE_INVALID_ARGUMENT');
    }
  }

  #onEvent(err: NativeError | null, chunk: Buffer | null, info: ChunkInfo, callSite: CallSite): void {
    if (info.final) {
      this.#finished = true;
      this.#handle = undefined;
    }
    if (this.destroyed) return;
    if (err) {
      this.destroy(fromNative(err, callSite, 'SAWT_ENGINE_ESPEAK'));
      return;
    }
    this.emit('chunk-info', info);
    if (chunk && !this.push(chunk) && !this.#paused) {
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
