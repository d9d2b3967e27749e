/**
 * The output formats: the table is @sawt/protocol's (the client reads the same one); the server's
 * own part, the 40001 of an unknown name and the header of a streamed WAV, is here.
 */
import { OUTPUT_FORMAT_NAMES, findOutputFormat, type OutputFormatSpec } from '@sawt/protocol';
import { errors, type SawtError } from './errors.js';
import { wavHeader } from './wav.js';

export {
  DEFAULT_SAMPLE_RATE, OUTPUT_FORMAT_NAMES, OUTPUT_FORMAT_TABLE, OUTPUT_SAMPLE_RATES, SYNTHESIS_RATES, findOutputFormat, playedDelayMs, synthesisRate,
  type OutputCodec, type OutputFormatSpec, type SynthesisRate,
} from '@sawt/protocol';

/** The 400 / 40001 of a name that is no format, listing the valid ones (the words of validateFields' enum message). */
export function unknownOutputFormat(): SawtError {
  return errors.validation(`output_format must be one of ${OUTPUT_FORMAT_NAMES.join(', ')}`);
}

/** The format of `name`; throws 40001 listing the valid names. */
export function outputFormat(name: unknown): OutputFormatSpec {
  const f = findOutputFormat(name);
  if (!f) throw unknownOutputFormat();
  return f;
}

/** A WAV header of unknown length (both sizes 0xFFFFFFFF): the first bytes of a streamed WAV. */
export function streamingWavHeader(sampleRate: number): Buffer {
  const h = wavHeader(0, sampleRate);
  h.writeUInt32LE(0xffffffff, 4);
  h.writeUInt32LE(0xffffffff, 40);
  return h;
}
