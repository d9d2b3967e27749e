import type { FieldRules } from '@sawt/core';

/** Sample rates a client may ask for (initConnection output_format). */
export const OUTPUT_FORMATS = ['pcm_8000', 'pcm_16000', 'pcm_22050', 'pcm_24000'] as const;

/**
 * Field rules of the client messages: the session validates with them (the same
 * rules and messages as HTTP) and the AsyncAPI document is generated from them.
 */
export const initFields: FieldRules = {
  model_id: { type: 'string', description: 'Model to use (GET /models); default the service\'s mini model, sawt-mini.' },
  voice_id: { type: 'string', required: true, description: 'Voice to use (GET /voices); a cloned voice of the account works too.' },
  voice_settings: {
    type: 'object',
    description: 'Optional voice settings.',
    fields: {
      stability: { type: 'number', minimum: 0, maximum: 1, default: 0.5, description: 'Higher gives more consistent output.' },
      similarity_boost: { type: 'number', minimum: 0, maximum: 1, default: 0.75, description: 'Accepted for compatibility; no effect on the built-in voices.' },
      speed: { type: 'number', minimum: 0.7, maximum: 1.2, default: 1, description: 'Below 1.0 slows speech, above 1.0 speeds it.' },
    },
  },
  output_format: { type: 'string', enum: OUTPUT_FORMATS, description: 'PCM16 mono at this sample rate (resampled server-side); default pcm_24000. Audio messages state it in sampleRate.' },
  x_api_key: { type: 'string', description: 'The API key, when it is not given in the x-api-key query parameter or header.' },
};

export const textFields: FieldRules = {
  text: { type: 'string', required: false, description: 'Text chunk to add to the buffer. Generation starts at a sentence end or once the buffer is long enough (50, then 120, then 200 characters).' },
  flush: { type: 'boolean', default: false, description: 'Generate everything buffered now; the text received since the previous flush must have at least 3 words and 10 characters (else error 40001). The last audio message of a flush carries isFinal: true.' },
  try_trigger_generation: { type: 'boolean', default: false, description: 'Start generating the buffered whole words now when they are at least 20 characters, without waiting for a sentence end.' },
};
