/**
 * Piper (VITS) voices through the addon's ONNX Runtime: loading with Piper's I/O checked, one
 * sentence per run (off the main thread, through the addon's bounded ONNX run queue), runs
 * cancelled by tag; and espeak-ng's IPA as Piper reads it.
 */
import { nativeAddon, type NativePiperRunOptions, type NativePiperSession, type NativePiperStats } from './addon.js';
import { captureCallSite, EngineError, fromNative } from './errors.js';

export interface PiperSessionOptions {
  executionProvider?: 'cpu' | 'cuda';
  /** Threads inside one run (default 1). */
  intraOpThreads?: number;
}

export class PiperSession {
  readonly #native: NativePiperSession;
  #released = false;

  private constructor(native: NativePiperSession) {
    this.#native = native;
  }

  /** Rejects with SAWT_ENGINE_ONNX when the file is not a Piper voice (names what differs), SAWT_ENGINE_CUDA_UNAVAILABLE naming what is missing. */
  static async create(path: string, options: PiperSessionOptions = {}): Promise<PiperSession> {
    const callSite = captureCallSite();
    try {
      return new PiperSession(await nativeAddon().PiperSession.create(path, options));
    } catch (error) {
      throw fromNative(error, callSite, 'SAWT_ENGINE_ONNX');
    }
  }

  get inputNames(): readonly string[] { return this.#native.inputNames; }
  /** The voice has a speaker input (multi-speaker). */
  get hasSid(): boolean { return this.#native.hasSid; }

  /** One sentence; `ids` must not change until the promise settles. SAWT_ENGINE_CANCELLED after cancel(tag). */
  async synthesize(ids: BigInt64Array, options: NativePiperRunOptions): Promise<{ pcm: Int16Array; samples: number }> {
    const callSite = captureCallSite();
    if (this.#released) throw new EngineError('SAWT_ENGINE_INVALID_ARGUMENT', 'This PiperSession has been released');
    try {
      return await this.#native.synthesize(ids, options);
    } catch (error) {
      throw fromNative(error, callSite, 'SAWT_ENGINE_ONNX');
    }
  }

  /** Terminates the runs started with `tag`, queued or running. */
  cancel(tag: number): void {
    this.#native.cancel(tag);
  }

  stats(): NativePiperStats {
    return this.#native.stats();
  }

  release(): void {
    this.#released = true;
    this.#native.release();
  }
}

/** espeak-ng clause by clause, IPA without ties, as Piper calls it: [phonemes, text consumed]. */
export async function ipaClauses(text: string, voice: string): Promise<Array<[string, string]>> {
  const callSite = captureCallSite();
  try {
    return await nativeAddon().piperClauses(text, voice);
  } catch (error) {
    throw fromNative(error, callSite, 'SAWT_ENGINE_ESPEAK');
  }
}

/** IPA of text that holds [[espeak mnemonics]] (from espeak's phoneme trace). */
export async function phonemeInputIpa(text: string, voice: string): Promise<string> {
  const callSite = captureCallSite();
  try {
    return await nativeAddon().phonemeInputIpa(text, voice);
  } catch (error) {
    throw fromNative(error, callSite, 'SAWT_ENGINE_ESPEAK');
  }
}
