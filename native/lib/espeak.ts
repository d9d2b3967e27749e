/**
 * espeak-ng through the addon (espeak_binding.cc): streaming synthesis, phonemes, voices and the
 * instance count.
 */
import { captureCallSite, fromNative } from './errors.js';
import { loadBinding } from './load.js';
import { SynthesisStream, type SynthesisEventHandler, type SynthesisHandle } from './synthesis-stream.js';
import { integerBetween, nonEmptyString, oneOf, string, validateSynthesisOptions, type NativeSynthesisOptions, type SynthesisOptions } from './validate.js';

export interface EspeakVoice {
  name: string;
  languages: string[];
  identifier: string;
}

export interface EspeakBinding {
  phonemize(text: string, voice: string, mode: 'ipa' | 'espeak', urgent: boolean): Promise<string>;
  listVoices(): EspeakVoice[];
  /** Sets the espeak-ng instances (1..8) before espeak's first use; returns the count in force. */
  espeakInstances(count?: number): number;
  /** The speaking rates (words per minute) the engine uses, others clamped into it (espeak_engine.h). */
  readonly espeakRateRange: { readonly min: number; readonly max: number };
  createSynthesis(options: NativeSynthesisOptions, onEvent: SynthesisEventHandler): SynthesisHandle;
}

const native = (): EspeakBinding => loadBinding<EspeakBinding>();

export type PhonemeMode = 'ipa' | 'espeak';

/**
 * Phonemes of `text` from espeak-ng, clauses joined by a space. Runs off the main thread, on
 * threads of its own (one per espeak instance; not libuv's pool, which the wait for an instance
 * would hold). mode 'ipa' (default): IPA; 'espeak': espeak's own phoneme mnemonics, which
 * espeak reads back as phoneme input inside [[ ]] (dialect rules rewrite these).
 * `urgent`: goes ahead of waiting calls that are not (a request's first segment).
 */
export async function phonemize(text: string, voice = 'ar', mode: PhonemeMode = 'ipa', options: { urgent?: boolean } = {}): Promise<string> {
  const callSite = captureCallSite();
  try {
    return await native().phonemize(string('text', text), nonEmptyString('voice', voice), oneOf('mode', mode, ['ipa', 'espeak'] as const), options.urgent === true);
  } catch (error) {
    throw fromNative(error, callSite, 'SAWT_ENGINE_ESPEAK');
  }
}

/** The voices espeak-ng knows (e.g. { name: 'Arabic', languages: ['ar'], identifier: 'sem/ar' }). */
export function listVoices(): EspeakVoice[] {
  const callSite = captureCallSite();
  try {
    return native().listVoices();
  } catch (error) {
    throw fromNative(error, callSite, 'SAWT_ENGINE_ESPEAK');
  }
}

/**
 * Sets how many espeak-ng instances synthesize and phonemize in parallel (1..8; each a private copy
 * of the library with its own state, one synthesis thread each) and returns the count in force.
 * Takes effect only before espeak's first use in the process; without `count`, only reads it.
 */
export function espeakInstances(count?: number): number {
  if (count !== undefined) integerBetween('count', count, 1, 8);
  const callSite = captureCallSite();
  try {
    return native().espeakInstances(count);
  } catch (error) {
    throw fromNative(error, callSite, 'SAWT_ENGINE_INVALID_ARGUMENT');
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
  const validated = validateSynthesisOptions(options);
  return new SynthesisStream(validated, callSite, (onEvent) => native().createSynthesis(validated, onEvent));
}
