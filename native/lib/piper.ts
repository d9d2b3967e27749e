/**
 * Piper (VITS) voices through the addon's ONNX Runtime: loading with Piper's I/O checked, one
 * sentence per run (off the main thread, through the addon's bounded ONNX run queue), runs
 * cancelled by tag; and espeak-ng's IPA as Piper reads it.
 */
import { callNative, captureCallSite, EngineError } from './errors.js';
import { loadBinding } from './load.js';
import { validatePiperRun } from './validate.js';

export interface NativePiperRunOptions {
  noiseScale: number;
  lengthScale: number;
  noiseW: number;
  /** Speaker id (multi-speaker voices only; ignored otherwise). */
  sid?: number;
  /** The voice's rate (config audio.sample_rate) and the rate wanted; resampled band-limited when they differ. */
  inRate: number;
  outRate: number;
  /** Scale after Piper's peak normalization, 0..1 (default 1). */
  volume?: number;
  /** Silence appended after the sentence, ms. */
  silenceMs?: number;
  /** Runs started with the same tag are terminated together by cancel(tag). */
  tag?: number;
}

export interface NativePiperStats {
  started: number;
  finished: number;
  terminated: number;
  /** Runs cancelled before they started. */
  skipped: number;
  /** Runs queued or running now. */
  pending: number;
}

export interface NativePiperSession {
  readonly inputNames: string[];
  readonly hasSid: boolean;
  /** One sentence's ids (used in place until the promise settles) → PCM16 at outRate (external buffer, no copy). */
  synthesize(ids: BigInt64Array, options: NativePiperRunOptions): Promise<{ pcm: Int16Array; samples: number }>;
  cancel(tag: number): void;
  stats(): NativePiperStats;
  release(): void;
}

/** Piper's part of the addon (piper_binding.cc). */
export interface PiperBinding {
  PiperSession: { create(path: string, options?: { executionProvider?: 'cpu' | 'cuda'; intraOpThreads?: number }): Promise<NativePiperSession> };
  /** espeak_TextToPhonemes clause by clause (IPA, phonememode 0x02): [phonemes, text consumed (trimmed)]. */
  piperClauses(text: string, voice: string): Promise<Array<[string, string]>>;
  /** IPA of text holding [[mnemonics]] (espeak's phoneme trace of a synthesis with phoneme input). */
  phonemeInputIpa(text: string, voice: string): Promise<string>;
}

const native = (): PiperBinding => loadBinding<PiperBinding>();

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
    return new PiperSession(await callNative(captureCallSite(), 'SAWT_ENGINE_ONNX', () => native().PiperSession.create(path, options)));
  }

  get inputNames(): readonly string[] { return this.#native.inputNames; }
  /** The voice has a speaker input (multi-speaker). */
  get hasSid(): boolean { return this.#native.hasSid; }

  /** One sentence; `ids` must not change until the promise settles. SAWT_ENGINE_CANCELLED after cancel(tag). */
  async synthesize(ids: BigInt64Array, options: NativePiperRunOptions): Promise<{ pcm: Int16Array; samples: number }> {
    if (this.#released) throw new EngineError('SAWT_ENGINE_INVALID_ARGUMENT', 'This PiperSession has been released');
    validatePiperRun(ids, options);
    return callNative(captureCallSite(), 'SAWT_ENGINE_ONNX', () => this.#native.synthesize(ids, options));
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
  return callNative(captureCallSite(), 'SAWT_ENGINE_ESPEAK', () => native().piperClauses(text, voice));
}

/** IPA of text that holds [[espeak mnemonics]] (from espeak's phoneme trace). */
export async function phonemeInputIpa(text: string, voice: string): Promise<string> {
  return callNative(captureCallSite(), 'SAWT_ENGINE_ESPEAK', () => native().phonemeInputIpa(text, voice));
}
