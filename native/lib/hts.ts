/**
 * The HTS engine through the addon: streaming synthesis (the same Readable as synthesizeStream) from
 * full-context labels or from parameter streams, and the generated parameter streams themselves.
 */
import { nativeAddon, type HtsParameterStreams, type NativeHtsOptions, type NativeHtsSynthesisOptions } from './addon.js';
import { captureCallSite, fromNative } from './errors.js';
import { SynthesisStream } from './synthesis-stream.js';
import { invalid, object } from './validate.js';

/**
 * Starts HTS synthesis; audio (PCM16LE mono at sampleRate) streams sentence by sentence.
 *
 * Give exactly one of:
 * - `utterances`: full-context labels per sentence; the engine generates the streams, then vocodes them.
 *   Optional `words` (one list per utterance: the label of each word's first phone, and its textOffset
 *   and length, as textToUtterances gives them) give word timings as espeak's: each chunk's info carries
 *   the words that start inside its chunk, audioMs from the chunk's start; the sentence's last chunk
 *   carries any left. Checked now: one list per utterance, labels in range and increasing.
 * - `parameters`: streams per sentence as htsParameters returns them, edited or not (e.g. log F0
 *   shifted, mel-cepstrum changed); they are vocoded as they are, with the same windows, cross-fades,
 *   gain, limiter, resampling, chunks, backpressure and events as labels. Float32Array or Float64Array;
 *   lf0 NaN = unvoiced; every other value must be finite. speed, halfTone, f0Spread and the GV weights
 *   act during generation and do nothing here; alpha, postfilter, highpassHz, gainDb, sampleRate, chunkMs
 *   and the window sizes apply. Shapes are checked now (EngineError SAWT_ENGINE_INVALID_ARGUMENT, thrown); dims against the
 *   voice once it is loaded (the stream is destroyed with SAWT_ENGINE_INVALID_ARGUMENT before any audio).
 *   The arrays are copied before this returns: the caller may reuse them at once.
 */
export function synthesizeHtsStream(options: NativeHtsSynthesisOptions): SynthesisStream {
  const callSite = captureCallSite();
  const o = object('options', options);
  if ((o.utterances === undefined) === (o.parameters === undefined)) {
    throw invalid('exactly one of utterances (labels) and parameters (streams)', 'options', options,
      o.utterances === undefined ? 'neither' : 'both');
  }
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
