/**
 * The HTS engine through the addon: streaming synthesis from full-context labels
 * (the same Readable as synthesizeStream) and the generated parameter streams.
 */
import { nativeAddon, type HtsParameterStreams, type NativeHtsOptions, type NativeHtsSynthesisOptions } from './addon.js';
import { captureCallSite, fromNative } from './errors.js';
import { SynthesisStream } from './synthesis-stream.js';

/** Starts HTS synthesis; audio (PCM16LE mono at sampleRate) streams sentence by sentence. */
export function synthesizeHtsStream(options: NativeHtsSynthesisOptions): SynthesisStream {
  const callSite = captureCallSite();
  return new SynthesisStream(options, callSite, (onEvent) => nativeAddon().createHtsSynthesis(options, onEvent));
}

/** Log-F0 and mel-cepstrum streams per utterance, as the engine generates them before vocoding. */
export async function htsParameters(options: NativeHtsOptions): Promise<HtsParameterStreams[]> {
  const callSite = captureCallSite();
  try {
    return await nativeAddon().htsParameters(options);
  } catch (error) {
    throw fromNative(error, callSite, 'SAWT_ENGINE_INVALID_ARGUMENT');
  }
}
