/**
 * The HTS engine through the addon: streaming synthesis (the same Readable as synthesizeStream) from
 * full-context labels or from parameter streams, and the generated parameter streams themselves.
 */
import { captureCallSite, fromNative } from './errors.js';
import { loadBinding } from './load.js';
import { SynthesisStream, type SynthesisEventHandler, type SynthesisHandle } from './synthesis-stream.js';
import { validateHtsOptions } from './validate.js';

/** The voice and controls of the HTS engine, shared by createHtsSynthesis and htsParameters. */
export interface NativeHtsControls {
  /** Path of the .htsvoice file; each worker thread loads its own engine from it. */
  voicePath: string;
  /**
   * Duration scale (HTS_Engine_set_speed), 0.25..4.
   * speed, halfTone, f0Spread and the GV weights act during parameter generation: they do nothing to
   * given `parameters` (checked all the same).
   */
  speed?: number;
  /** Additive half-tones on log F0 (HTS_Engine_add_half_tone), -24..24. */
  halfTone?: number;
  /** Scale of log F0 around the utterance mean, 0..4 (1 = unchanged). */
  f0Spread?: number;
  /** All-pass constant of the MLSA filter (vocal-tract length); default the voice's 0.55. */
  alpha?: number;
  /**
   * Added to every generated mel-cepstrum frame (c0, c1, …; at most 256 values within ±10): a fixed
   * smooth filter in the log-spectral domain, e.g. a cloned voice's EQ. Acts during generation.
   */
  mgcOffset?: number[];
  /**
   * Mel-cepstral postfilter coefficient (HTS beta, 0..0.8; 0 = none): deepens the valleys between
   * formants, countering the over-smoothing of HMM spectra. Acts when vocoding (labels and given streams).
   */
  postfilter?: number;
  /**
   * Corner (Hz, 0..500; 0 = none) of a 2nd-order high-pass on the vocoded output, before the gain and
   * limiter: removes the DC offset and rumble of the vocoder's all-positive pulse train. Acts when vocoding.
   */
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
 * Streams to vocode as they are, one entry per utterance: htsParameters' result, edited or not.
 * mgc, lf0 and lpf may be Float32Array or Float64Array, of frames × dims[stream] values; lf0 NaN =
 * unvoiced, every other value finite. dims must be the voice's own (checked once the job runs: the
 * stream fails with SAWT_ENGINE_INVALID_ARGUMENT naming both). lpf (with dims.lpf) may be left out
 * only for a voice without an lpf stream. framePeriodMs and sampleRate are not read: frames are
 * vocoded at the voice's.
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
 * What HTS synthesis vocodes: exactly one of labels (generated first) or given parameter streams.
 * With labels, `words` (one list per utterance, textToUtterances gives them) makes each chunk's info
 * carry the words that start inside that chunk, audioMs from the chunk's start: the label's start is
 * the sum of the generated state durations before it (speed included), at the output rate.
 * `voicedClosures` (one list per utterance, label indices): those phones (a stop the voice only has
 * voiceless, e.g. /g/ said as k) get a voiced closure: log F0 over the first 60 % of their frames is
 * bridged from the voiced frames around them.
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
  /** Frames (5 ms) of the first vocoded window of a sentence (default 80) and of the later ones (600; they grow to it, at most 5× the frames already made). Window ends move to a quiet unvoiced frame nearby. */
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
 * Starts HTS synthesis of exactly one source (NativeHtsSource: labels, generated then vocoded, or
 * given parameter streams, vocoded as they are with the same windows, cross-fades, gain, limiter,
 * resampling, chunks and backpressure); audio (PCM16LE mono at sampleRate) streams sentence by
 * sentence. Options and shapes are checked now (EngineError SAWT_ENGINE_INVALID_ARGUMENT, thrown),
 * given dims against the voice once it is loaded (the stream is destroyed with that error before
 * any audio). The arrays are copied before this returns: the caller may reuse them at once.
 */
export function synthesizeHtsStream(options: NativeHtsSynthesisOptions): SynthesisStream {
  const callSite = captureCallSite();
  validateHtsOptions(options, true);
  return new SynthesisStream(options, callSite, (onEvent) => native().createHtsSynthesis(options, onEvent));
}

/** Log-F0 and mel-cepstrum streams per utterance, as the engine generates them before vocoding. */
export async function htsParameters(options: NativeHtsOptions): Promise<HtsParameterStreams[]> {
  const callSite = captureCallSite();
  validateHtsOptions(options, false);
  try {
    return await native().htsParameters(options);
  } catch (error) {
    throw fromNative(error, callSite, 'SAWT_ENGINE_INVALID_ARGUMENT');
  }
}
