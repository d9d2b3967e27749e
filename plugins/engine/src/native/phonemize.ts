import { nativeAddon, type EspeakVoice } from './addon.js';
import { captureCallSite, fromNative } from './errors.js';
import { nonEmptyString, string } from './validate.js';

/** IPA phonemes of `text` from espeak-ng, clauses joined by a space. Runs off the main thread. */
export async function phonemize(text: string, voice = 'ar'): Promise<string> {
  const callSite = captureCallSite();
  const native = nativeAddon();
  try {
    return await native.phonemize(string('text', text), nonEmptyString('voice', voice));
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
