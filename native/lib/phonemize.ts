import { nativeAddon, type EspeakVoice } from './addon.js';
import { captureCallSite, fromNative } from './errors.js';
import { integerBetween, nonEmptyString, oneOf, string } from './validate.js';

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
  const native = nativeAddon();
  try {
    return await native.phonemize(string('text', text), nonEmptyString('voice', voice), oneOf('mode', mode, ['ipa', 'espeak'] as const), options.urgent === true);
  } catch (error) {
    throw fromNative(error, callSite, 'SAWT_ENGINE_ESPEAK');
  }
}

/** The voices espeak-ng knows (e.g. { name: 'Arabic', languages: ['ar'], identifier: 'sem/ar' }). */
export function listVoices(): EspeakVoice[] {
  const callSite = captureCallSite();
  try {
    return nativeAddon().listVoices();
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
    return nativeAddon().espeakInstances(count);
  } catch (error) {
    throw fromNative(error, callSite, 'SAWT_ENGINE_INVALID_ARGUMENT');
  }
}
