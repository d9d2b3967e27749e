/**
 * DeepFilterNet3 (48 kHz speech enhancement) in the addon (dfn3.cc), run in windows of frames. A stream
 * is one stateful channel; after flush its output is exactly as long as its input and lines up with it.
 */
import { callNative, callNativeSync, captureCallSite } from './errors.js';
import { loadBinding } from './load.js';

/** The three models, by the names of the model directory (`denoise/dfn3/` in the models layout). */
export const DFN3_FILES = { enc: 'enc.onnx', erbDec: 'erb_dec.onnx', dfDec: 'df_dec.onnx' } as const;
export type Dfn3Files = Record<keyof typeof DFN3_FILES, string>;

export interface Dfn3Options {
  /** ONNX Runtime threads per model run; default 1 (faster than 2 on a 2-core machine). */
  intraOpThreads?: number;
  /** 'cuda': ONNX Runtime's CUDA execution provider; load rejects (SAWT_ENGINE_CUDA_UNAVAILABLE) naming what is missing. Default 'cpu'. */
  executionProvider?: 'cpu' | 'cuda';
  /** Frames (10 ms each) emitted per model window; default 1000. */
  blockFrames?: number;
  /** Level normalization of the model's features only: the loudest 100 ms within ±1 s brought to `levelDb`. Default true. */
  normalizeLevel?: boolean;
  /** Target of the level normalization, dBFS (mean square of the loudest 100 ms); default -22. */
  levelDb?: number;
  /** DeepFilterNet's own post-filter (mask_pf, beta 0.02). Default 0: measured no SI-SDR gain (-0.1 dB, bench:denoise-quality). */
  postFilterBeta?: number;
  /**
   * Speech guard, default true. DFN3 was not trained on interfering speech (p_interfer_sp = 0)
   * and on babble removes parts of the target talker. Per model window (10 s; running means over
   * the windows so far), two measures over 100 Hz-8 kHz: how modulated the removed part |X - Y|^2
   * is (per ERB band the mean over the 10th percentile of its 50 ms power, median over bands, dB:
   * 2-8 for stationary noise, 17-26 for babble and impulsive noise) and how undecided the masks
   * |Y|/|X| are (energy-weighted mean of 4 g (1 - g): 0.18-0.41 for noise, 0.65-0.81 for babble
   * at 0-5 dB). Each ramps from its low to its high (`guardLowDb` 8 to `guardHighDb` 14,
   * `guardLowMask` 0.4 to `guardHighMask` 0.6); their product blends the output back towards the
   * input, down to `guardWet` (0.2) of the enhanced signal (output = wet * enhanced + (1 - wet) * input).
   */
  speechGuard?: boolean;
  guardLowDb?: number;
  guardHighDb?: number;
  guardLowMask?: number;
  guardHighMask?: number;
  guardWet?: number;
  /**
   * High-SNR blend, default true. DFN3 distorts the speech it keeps, so where it removes little
   * (a high input SNR) its output is worse than its input (issue 34: -1.8 dB SI-SDR on pink noise
   * at 20 dB SNR). Per model window (running means as the guard's), the energy the model kept over
   * the energy it removed (all frequencies) estimates the input SNR, and the output takes a share
   * min(1, (snr / level)^2) of the input (power ratios), the level being `snrBlendDb` (16.5) and
   * `snrBlendSpeechDb` (13) lower as the removed part looks like speech by the guard's two
   * measures (on babble the model also removes parts of the talker). Times the guard's wet
   * fraction; between windows the fraction moves over 0.5 s, so there is no step in the audio.
   */
  snrBlend?: boolean;
  snrBlendDb?: number;
  snrBlendSpeechDb?: number;
  /** Frames of already emitted audio re-run before a window (recurrent warm-up); default 100. */
  contextFrames?: number;
}

/** Opaque handles of the addon: loaded sessions, and one channel's stream state. */
export interface Dfn3ModelHandle { readonly __dfn3Model?: never }
export interface Dfn3StreamHandle { readonly __dfn3Stream?: never }

/** DeepFilterNet3 of the addon (dfn3_binding.cc). */
export interface Dfn3Binding {
  dfn3Load(files: Dfn3Files, options?: Dfn3Options): Promise<Dfn3ModelHandle>;
  dfn3Open(model: Dfn3ModelHandle): Dfn3StreamHandle;
  dfn3Process(stream: Dfn3StreamHandle, samples: Float32Array, flush: boolean): Promise<Float32Array>;
}

const native = (): Dfn3Binding => loadBinding<Dfn3Binding>();

/** One channel of audio through a loaded model. */
export class Dfn3Stream {
  constructor(private readonly handle: Dfn3StreamHandle) {}

  /** Denoises the next samples (48 kHz mono float); `flush` ends the stream and returns its tail. */
  process(samples: Float32Array, flush = false): Promise<Float32Array> {
    return callNative(captureCallSite(), 'SAWT_ENGINE_ONNX', () => native().dfn3Process(this.handle, samples, flush));
  }
}

/** The three DFN3 sessions, loaded once and shared by every stream opened on them. */
export class Dfn3Model {
  private constructor(private readonly handle: Dfn3ModelHandle) {}

  /** Loads the three models (absolute paths). */
  static async load(files: Dfn3Files, options: Dfn3Options = {}): Promise<Dfn3Model> {
    return new Dfn3Model(await callNative(captureCallSite(), 'SAWT_ENGINE_ONNX', () => native().dfn3Load(files, options)));
  }

  openStream(): Dfn3Stream {
    return new Dfn3Stream(callNativeSync(captureCallSite(), 'SAWT_ENGINE_ONNX', () => native().dfn3Open(this.handle)));
  }
}
