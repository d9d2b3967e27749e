/** espeak-ng through the addon (espeak_binding.cc): synthesis, phonemes, voices and the instance count. */
import { callNative, callNativeSync, captureCallSite } from './errors.js';
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
 * Phonemes of `text`, clauses joined by a space, on espeak's own threads (not libuv's pool, which the
 * wait for an instance would hold): IPA, or espeak mnemonics (readable back inside [[ ]]). `urgent` goes first.
 */
export async function phonemize(text: string, voice = 'ar', mode: PhonemeMode = 'ipa', options: { urgent?: boolean } = {}): Promise<string> {
  return callNative(captureCallSite(), 'SAWT_ENGINE_ESPEAK', () =>
    native().phonemize(string('text', text), nonEmptyString('voice', voice), oneOf('mode', mode, ['ipa', 'espeak'] as const), options.urgent === true));
}

/** The voices espeak-ng knows (e.g. { name: 'Arabic', languages: ['ar'], identifier: 'sem/ar' }). */
export function listVoices(): EspeakVoice[] {
  return callNativeSync(captureCallSite(), 'SAWT_ENGINE_ESPEAK', () => native().listVoices());
}

/** Sets (1..8, before espeak's first use) or reads the count of parallel espeak-ng instances; returns the count in force. */
export function espeakInstances(count?: number): number {
  if (count !== undefined) integerBetween('count', count, 1, 8);
  return callNativeSync(captureCallSite(), 'SAWT_ENGINE_INVALID_ARGUMENT', () => native().espeakInstances(count));
}

/** Starts espeak-ng synthesis of `segments`; bad options throw SAWT_ENGINE_INVALID_ARGUMENT, later failures destroy the stream. */
export function synthesizeStream(options: SynthesisOptions): SynthesisStream {
  const validated = validateSynthesisOptions(options);
  return new SynthesisStream(validated, captureCallSite(), (onEvent) => native().createSynthesis(validated, onEvent));
}
