/**
 * Speaker analysis and voice conversion of the native addon (voice_analysis.cc).
 * analyzeVoice, convertVoice and trackF0 run on libuv's pool; matchSpectra is synchronous (cheap).
 */
import { callNative, callNativeSync, captureCallSite } from './errors.js';
import { loadBinding } from './load.js';

export interface VoiceAnalysis {
  sampleRate: number;
  totalSeconds: number;
  /** Seconds of speech (energy VAD). */
  speechSeconds: number;
  /** Seconds of speech with an F0 (YIN). */
  voicedSeconds: number;
  f0Median: number;
  logF0Mean: number;
  logF0Std: number;
  /** Syllable nuclei per second of speech. */
  syllableRate: number;
  /** Long-term average spectrum, 513 bins of a 1024-point FFT, dB, mean (100–7500 Hz) removed. */
  ltasDb: number[];
  /** Third-octave bands from 100 Hz, dB, mean removed. */
  bandsDb: number[];
  bandCenters: number[];
  /** Mean MFCCs c1..c12 over speech frames. */
  mfccMean: number[];
}

export interface SpectralMatch {
  /** Frequency warp factor (vocal-tract-length ratio reference/base). */
  warp: number;
  distanceBefore: number;
  distanceAfter: number;
  /** Smooth EQ (dB per LTAS bin) toward the reference after warping. */
  eqDb: number[];
}

export interface ConvertParams {
  srcLogF0Mean: number;
  srcLogF0Std: number;
  dstLogF0Mean: number;
  dstLogF0Std: number;
  warp: number;
  eqDb?: number[];
  /** F0 track of the samples (trackF0's output); tracked again inside the conversion when absent. */
  f0?: Float64Array;
}

/** Voice analysis and conversion of the addon (voice_binding.cc). */
export interface VoiceBinding {
  analyzeVoice(samples: Int16Array, sampleRate: number): Promise<VoiceAnalysis>;
  convertVoice(samples: Int16Array, sampleRate: number, params: ConvertParams): Promise<Int16Array>;
  matchSpectra(ref: number[], base: number[], sampleRate: number): SpectralMatch;
  trackF0(samples: Int16Array, sampleRate: number): Promise<Float64Array>;
}

const native = (): VoiceBinding => loadBinding<VoiceBinding>();

function asInt16(pcm: Buffer | Int16Array): Int16Array {
  if (pcm instanceof Int16Array) return pcm;
  const n = Math.floor(pcm.length / 2);
  if (pcm.byteOffset % 2 === 0) return new Int16Array(pcm.buffer, pcm.byteOffset, n);
  const copy = new Int16Array(n);
  new Uint8Array(copy.buffer).set(pcm.subarray(0, n * 2));
  return copy;
}

/** Analyzes PCM16 mono audio (a Buffer of PCM16LE or an Int16Array). */
export function analyzeVoice(pcm: Buffer | Int16Array, sampleRate: number): Promise<VoiceAnalysis> {
  return callNative(captureCallSite(), 'SAWT_ENGINE_INVALID_ARGUMENT', () => native().analyzeVoice(asInt16(pcm), sampleRate));
}

/** Converts base-voice speech toward a speaker: F0 mapped in the log domain, envelope warped and equalized. */
export async function convertVoice(pcm: Buffer | Int16Array, sampleRate: number, params: ConvertParams): Promise<Buffer> {
  const out = await callNative(captureCallSite(), 'SAWT_ENGINE_INVALID_ARGUMENT', () => native().convertVoice(asInt16(pcm), sampleRate, params));
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** F0 track (YIN): Hz per 10 ms hop, 0 where unvoiced. */
export function trackF0(pcm: Buffer | Int16Array, sampleRate: number): Promise<Float64Array> {
  return callNative(captureCallSite(), 'SAWT_ENGINE_INVALID_ARGUMENT', () => native().trackF0(asInt16(pcm), sampleRate));
}

export function matchSpectra(ref: number[], base: number[], sampleRate: number): SpectralMatch {
  return callNativeSync(captureCallSite(), 'SAWT_ENGINE_INVALID_ARGUMENT', () => native().matchSpectra(ref, base, sampleRate));
}
