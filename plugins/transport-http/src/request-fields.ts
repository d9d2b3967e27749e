import { defineFields, DICTIONARY_LOCATORS_SCHEMA, errors, isSsmlText, meetsTextMinimum, OUTPUT_FORMAT_NAMES, parseDictionaryLocators, TEXT_TOO_SHORT_MESSAGE, type DictionaryLocator, type SpeechTextType } from '@sawt/core';

/** Body of POST /text-to-speech/{model_id} (the public API), shared by validation and OpenAPI. */
export function ttsFields(maxTextChars: number) {
  return defineFields({
    voice_id: { type: 'string', required: true, description: 'Voice to use (from GET /voices)' },
    // The 3-word / 10-character rule applies to the spoken text (speechTextOptions): SSML markup does not count.
    text: { type: 'string', required: true, maxLength: maxTextChars, description: 'Arabic text, or an SSML document (text_type ssml, or a text starting with <speak); at least 3 words and at least 10 characters spoken' },
    stability: { type: 'number', required: true, minimum: 0, maximum: 1, description: 'Higher gives more consistent output' },
    speed: { type: 'number', minimum: 0.7, maximum: 1.2, default: 1, description: 'Below 1.0 slows speech, above 1.0 speeds it' },
    streaming: { type: 'boolean', required: true, description: 'true: the audio sent as it is generated (chunked); false: a complete file with Content-Length' },
    output_format: { type: 'string', enum: OUTPUT_FORMAT_NAMES, description: 'Output format (see the README\'s Output formats table); wins over the output_format query parameter. Default: wav_24000, or pcm_24000 when streaming' },
    text_type: { type: 'string', enum: ['text', 'ssml'], description: 'ssml: text is an SSML document (README, SSML); text (default): plain text, whose only markup is <break time="…"/>. A text starting with <speak is SSML either way' },
  });
}

/** `requestBody` (jsonBody of the fields) with `pronunciation_dictionary_locators` added to its schema. */
export function withLocators<B extends { content: Record<string, { schema: unknown }> }>(body: B): B {
  for (const media of Object.values(body.content)) {
    const schema = media.schema as { properties?: Record<string, unknown> };
    schema.properties = { ...schema.properties, pronunciation_dictionary_locators: DICTIONARY_LOCATORS_SCHEMA };
  }
  return body;
}

/** `text_type` and `pronunciation_dictionary_locators` of a request; a plain text must pass the text rule as written, SSML is checked on its spoken text later. */
export function speechTextOptions(body: unknown, text: string, textType: SpeechTextType | undefined): { textType?: SpeechTextType; dictionaryLocators?: DictionaryLocator[] } {
  if (!isSsmlText(text, textType) && !meetsTextMinimum(text)) throw errors.validation(TEXT_TOO_SHORT_MESSAGE);
  const dictionaryLocators = parseDictionaryLocators((body as Record<string, unknown>).pronunciation_dictionary_locators);
  return { ...(textType && { textType }), ...(dictionaryLocators?.length && { dictionaryLocators }) };
}
