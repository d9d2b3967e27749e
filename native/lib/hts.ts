/** The HTS engine through the addon: streaming synthesis from labels or parameter streams, and those streams. */
import { callNative, captureCallSite } from './errors.js';
import { loadBinding } from './load.js';
import { SynthesisStream, type SynthesisEventHandler, type SynthesisHandle } from './synthesis-stream.js';
import { validateHtsOptions } from './validate.js';

/** The voice and controls of the HTS engine, shared by createHtsSynthesis and htsParameters. */
export interface NativeHtsControls {
  /** Path of the .htsvoice file; each worker thread loads its own engine from it. */
  voicePath: string;
  /** Duration scale, 0.25..4. speed, halfTone, f0Spread and the GV weights act only when generating from labels. */
  speed?: number;
  /** Additive half-tones on log F0 (HTS_Engine_add_half_tone), -24..24. */
  halfTone?: number;
  /** Scale of log F0 around the utterance mean, 0..4 (1 = unchanged). */
  f0Spread?: number;
  /** All-pass constant of the MLSA filter (vocal-tract length); default the voice's 0.55. */
  alpha?: number;
  /** Added to every generated mel-cepstrum frame (≤ 256 values within ±10): a fixed EQ, e.g. a cloned voice's. */
  mgcOffset?: number[];
  /** Mel-cepstral postfilter (HTS beta, 0..0.8; 0 = none): counters the over-smoothing of HMM spectra. */
  postfilter?: number;
  /** Corner (Hz, 0..500; 0 = none) of a high-pass on the output: removes the pulse train's DC offset and rumble. */
  highpassHz?: number;
  /** Global-variance weights (1 = trained). */
  gvWeightLf0?: number;
  gvWeightMgc?: number;
  /** Fixed gain before the soft limiter, dB (default -6). */
  gainDb?: number;
  /** Worker threads of the voice's pool (taken when the pool is first made; default 2). */
  threads?: number;
}

/** htsParameters: the streams generated from labels. */
export interface NativeHtsOptions extends NativeHtsControls {
  /** Full-context labels, one array per utterance (sentence). */
  utterances: string[][];
  /** Per utterance, labels whose phone gets a voiced closure (see NativeHtsSource). */
  voicedClosures?: number[][];
}

/**
 * Streams to vocode as they are (htsParameters' result, edited or not), frames × dims[stream] values
 * each; lf0 NaN = unvoiced. dims must be the voice's (checked once the job runs); lpf may be left out
 * only for a voice without one. framePeriodMs and sampleRate are not read.
 */
export interface HtsParameterInput {
  frames: number;
  framePeriodMs?: number;
  sampleRate?: number;
  mgc: Float32Array | Float64Array;
  lf0: Float32Array | Float64Array;
  lpf?: Float32Array | Float64Array;
  dims: { mgc: number; lf0: number; lpf?: number };
}

/** A word of an HTS utterance, for word timings (createHtsSynthesis `words`). */
export interface HtsWordInput {
  /** Index into the utterance's labels of the word's first phone; increasing within an utterance. */
  label: number;
  /** Passed through to the chunk's word (the place of the word in the caller's text, UTF-16 code units). */
  textOffset: number;
  length: number;
}

/**
 * Exactly one of labels or given parameter streams. With labels, `words` (per utterance) gives each
 * chunk the words starting in it; `voicedClosures` (label indices per utterance) bridges log F0 over the
 * first 60 % of those phones' frames (a stop the voice only has voiceless, e.g. /g/ said as k).
 */
export type NativeHtsSource =
  | { utterances: string[][]; words?: HtsWordInput[][]; voicedClosures?: number[][]; parameters?: undefined }
  | { parameters: HtsParameterInput[]; utterances?: undefined; words?: undefined; voicedClosures?: undefined };

export type NativeHtsSynthesisOptions = NativeHtsControls & NativeHtsSource & NativeHtsSynthesisSettings;

/** Output settings of HTS synthesis; they apply to labels and given parameters alike (as do alpha and gainDb). */
export interface NativeHtsSynthesisSettings {
  sampleRate: number;
  maxQueuedChunks?: number;
  chunkMs?: number;
  /** Frames (5 ms) of a sentence's first vocoded window (default 80) and of the later ones (600, growing ≤ 5× the frames made). */
  firstWindowFrames?: number;
  windowFrames?: number;
  /** The turns up to the first vocoded window go ahead of other jobs' later turns on the pool (default true). */
  urgent?: boolean;
  /** Work nobody waits to hear (a long-form job's part): runs on the voice's background pool, niced below live requests (default false). */
  background?: boolean;
}

/** The generated streams of one utterance, between parameter generation and vocoding. */
export interface HtsParameterStreams {
  frames: number;
  framePeriodMs: number;
  sampleRate: number;
  /** Mel-cepstrum, frames × dims.mgc (c0..c34, alpha 0.55). */
  mgc: Float32Array;
  /** Log F0 per frame (natural log of Hz); NaN where unvoiced. */
  lf0: Float32Array;
  /** Low-pass filter stream, frames × dims.lpf. */
  lpf: Float32Array;
  dims: { mgc: number; lf0: number; lpf: number };
  /** The frame each label (phone) starts at, from the generated state durations (speed included). */
  labelFrames: Int32Array;
}

/** The HTS engine's part of the addon (hts_binding.cc). */
export interface HtsBinding {
  createHtsSynthesis(options: NativeHtsSynthesisOptions, onEvent: SynthesisEventHandler): SynthesisHandle;
  htsParameters(options: NativeHtsOptions): Promise<HtsParameterStreams[]>;
}

const native = (): HtsBinding => loadBinding<HtsBinding>();

/**
 * Starts HTS synthesis (PCM16LE mono at sampleRate, sentence by sentence). Bad options throw
 * SAWT_ENGINE_INVALID_ARGUMENT; the arrays are copied before this returns.
 */
export function synthesizeHtsStream(options: NativeHtsSynthesisOptions): SynthesisStream {
  validateHtsOptions(options, true);
  return new SynthesisStream(options, captureCallSite(), (onEvent) => native().createHtsSynthesis(options, onEvent));
}

/** Log-F0 and mel-cepstrum streams per utterance, as the engine generates them before vocoding. */
export async function htsParameters(options: NativeHtsOptions): Promise<HtsParameterStreams[]> {
  validateHtsOptions(options, false);
  return callNative(captureCallSite(), 'SAWT_ENGINE_INVALID_ARGUMENT', () => native().htsParameters(options));
}
