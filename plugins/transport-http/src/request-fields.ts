import { defineFields, OUTPUT_FORMAT_NAMES } from '@sawt/core';

/** Body of POST /text-to-speech/{model_id} (the public API), shared by validation and OpenAPI. */
export function ttsFields(maxTextChars: number) {
  return defineFields({
    voice_id: { type: 'string', required: true, description: 'Voice to use (from GET /voices)' },
    text: { type: 'string', required: true, textRule: true, maxLength: maxTextChars, description: 'Arabic text; at least 3 words and at least 10 characters' },
    stability: { type: 'number', required: true, minimum: 0, maximum: 1, description: 'Higher gives more consistent output' },
    speed: { type: 'number', minimum: 0.7, maximum: 1.2, default: 1, description: 'Below 1.0 slows speech, above 1.0 speeds it' },
    streaming: { type: 'boolean', required: true, description: 'true: the audio sent as it is generated (chunked); false: a complete file with Content-Length' },
    output_format: { type: 'string', enum: OUTPUT_FORMAT_NAMES, description: 'Output format (see the README\'s Output formats table); wins over the output_format query parameter. Default: wav_24000, or pcm_24000 when streaming' },
  });
}
