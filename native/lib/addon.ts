/**
 * The raw interface of the native engine addon (`native/build/Release/sawt_native.node`,
 * C++ sources beside this folder). Callers should use the validating wrappers of this
 * folder; this module only locates, loads and types the addon.
 *
 * Threads and memory, as the C++ side implements them:
 * - espeak-ng runs as one or more private instances (espeakInstances), each behind its own lock; synthesis runs on one
 *   native scheduler thread, jobs taking turns per segment (first segments first), phonemize on threads of its own (one per espeak instance, urgent calls first), ONNX work on libuv's pool.
 * - Audio chunks and ONNX outputs are external buffers over native memory,
 *   freed by their finalizers when JS collects them (no copy).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { EngineError } from './errors.js';
import type { Dfn3Files, Dfn3ModelHandle, Dfn3Options, Dfn3StreamHandle } from './dfn3.js';
import type { ConvertParams, SpectralMatch, VoiceAnalysis } from './voice.js';

export type TensorType = 'float32' | 'float64' | 'int64' | 'int32' | 'int16' | 'int8' | 'uint8' | 'bool';
export type TensorData =
  | Float32Array | Float64Array | BigInt64Array | Int32Array | Int16Array | Int8Array | Uint8Array;

export interface Tensor {
  type: TensorType;
  dims: number[];
  data: TensorData;
}

/** A model input or output; `dims` holds -1 where a dimension is dynamic. */
export interface TensorDescription {
  name: string;
  /** A TensorType, or e.g. 'float16' | 'string' | 'sequence' for tensors this API cannot exchange. */
  type: string;
  dims: number[];
}

export interface EspeakVoice {
  name: string;
  languages: string[];
  identifier: string;
}

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

export interface NativeSynthesisOptions {
  /** Normalized text pieces, usually sentences; synthesized in order. */
  segments: string[];
  /** espeak-ng voice spec, e.g. 'ar', 'ar+m3'. */
  voice: string;
  /** Words per minute, within espeakRateRange. */
  rate: number;
  /** 0..100. */
  pitch: number;
  /** 0..100. */
  range: number;
  /** Output rate, 8000..48000 (espeak's 22050 Hz is resampled). */
  sampleRate: number;
  /** Chunks allowed to wait for the JS thread (default 4). */
  maxQueuedChunks?: number;
  /** Emit a chunk whenever this much audio is ready in a segment; 0 (default): one per segment. */
  chunkMs?: number;
  /** The text holds [[...]] espeak phoneme mnemonics. */
  phonemeInput?: boolean;
  /**
   * The first segment goes ahead of the later segments of other jobs (default true): every
   * request's first audio waits for at most the segment in progress, not for whole texts.
   */
  urgent?: boolean;
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

export interface NativeResampler {
  process(samples: Int16Array): Int16Array;
  /** Returns the tail and resets the resampler for a new stream. */
  flush(): Int16Array;
}

export interface NativeOnnxSessionOptions {
  executionProvider?: 'cpu' | 'cuda';
  intraOpThreads?: number;
  interOpThreads?: number;
}

export interface NativeOnnxSession {
  readonly inputNames: string[];
  readonly outputNames: string[];
  readonly inputs: TensorDescription[];
  readonly outputs: TensorDescription[];
  /** Custom metadata map stored in the ONNX file. */
  readonly metadata: Record<string, string>;
  /** Feeds' TypedArrays must not be written to until the promise settles. */
  run(feeds: Record<string, Tensor>, outputNames?: string[]): Promise<Record<string, Tensor>>;
  release(): void;
}

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

export interface NativeAddon {
  AudioEncoder: new (codec: string, inRate: number, outRate: number, bitrate: number) => import('./encoder.js').NativeAudioEncoder;
  PiperSession: { create(path: string, options?: { executionProvider?: 'cpu' | 'cuda'; intraOpThreads?: number }): Promise<NativePiperSession> };
  /** espeak_TextToPhonemes clause by clause (IPA, phonememode 0x02): [phonemes, text consumed (trimmed)]. */
  piperClauses(text: string, voice: string): Promise<Array<[string, string]>>;
  /** IPA of text holding [[mnemonics]] (espeak's phoneme trace of a synthesis with phoneme input). */
  phonemeInputIpa(text: string, voice: string): Promise<string>;
  createHtsSynthesis(options: NativeHtsSynthesisOptions, onEvent: SynthesisEventHandler): SynthesisHandle;
  htsParameters(options: NativeHtsOptions): Promise<HtsParameterStreams[]>;
  phonemize(text: string, voice: string, mode?: 'ipa' | 'espeak', urgent?: boolean): Promise<string>;
  listVoices(): EspeakVoice[];
  /** Sets the espeak-ng instances (1..8) before espeak's first use; returns the count in force. */
  espeakInstances(count?: number): number;
  /** The speaking rates (words per minute) createSynthesis accepts (espeak_engine.h). */
  readonly espeakRateRange: { readonly min: number; readonly max: number };
  createSynthesis(options: NativeSynthesisOptions, onEvent: SynthesisEventHandler): SynthesisHandle;
  /** Audio chunks (espeak and HTS synthesis) made and not yet freed: after a garbage collection, what JS still holds. */
  pcmInFlight(): { chunks: number; bytes: number };
  Resampler: new (inRate: number, outRate: number) => NativeResampler;
  OnnxSession: { create(model: string | Uint8Array, options?: NativeOnnxSessionOptions): Promise<NativeOnnxSession> };
  availableProviders(): string[];
  analyzeVoice(samples: Int16Array, sampleRate: number): Promise<VoiceAnalysis>;
  convertVoice(samples: Int16Array, sampleRate: number, params: ConvertParams): Promise<Int16Array>;
  matchSpectra(ref: number[], base: number[], sampleRate: number): SpectralMatch;
  trackF0(samples: Int16Array, sampleRate: number): Promise<Float64Array>;
  dfn3Load(files: Dfn3Files, options?: Dfn3Options): Promise<Dfn3ModelHandle>;
  dfn3Open(model: Dfn3ModelHandle): Dfn3StreamHandle;
  dfn3Process(stream: Dfn3StreamHandle, samples: Float32Array, flush: boolean): Promise<Float32Array>;
}

/** Where `npm run build:native` puts the addon: native/build/Release, beside this package's dist/. */
const BUILT_ADDON = fileURLToPath(new URL('../build/Release/sawt_native.node', import.meta.url));

/** SAWT_NATIVE_ADDON, else the addon built inside this package (native/build/Release/sawt_native.node). */
export function locateAddon(): string {
  const override = process.env.SAWT_NATIVE_ADDON;
  if (override) return override;
  if (existsSync(BUILT_ADDON)) return BUILT_ADDON;
  throw new EngineError(
    'SAWT_ENGINE_ADDON_MISSING',
    `The native engine addon was not found at ${BUILT_ADDON}: run \`npm run build:native\` or set SAWT_NATIVE_ADDON`,
  );
}

let loaded: NativeAddon | undefined;

/** Loads the addon on first use (so that importing this package never needs it). */
export function nativeAddon(): NativeAddon {
  if (!loaded) {
    const require = createRequire(import.meta.url);
    loaded = require(locateAddon()) as NativeAddon;
  }
  return loaded;
}
