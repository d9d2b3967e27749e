/**
 * The text rule of the public API: at least 3 words and at least
 * 10 characters after trimming, words separated by white space. Applies to HTTP
 * text-to-speech, preview and the text of a WebSocket flush. Characters are
 * counted as Unicode code points; the same count is what billing charges.
 */
export const MIN_WORDS = 3;
export const MIN_CHARS = 10;
export const TEXT_TOO_SHORT_MESSAGE = `text must have at least ${MIN_WORDS} words and ${MIN_CHARS} characters`;

export function countChars(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

export function countWords(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/u).length;
}

/** The billable character count of a text: code points of the trimmed text. */
export function billableChars(text: string): number {
  return countChars(text.trim());
}

export function meetsTextMinimum(text: string): boolean {
  return countWords(text) >= MIN_WORDS && billableChars(text) >= MIN_CHARS;
}

/**
 * Whether a request's text is read as SSML: `text_type` says so, or the text starts with
 * <speak (or <?xml, <!DOCTYPE). The transports' text rule then applies to the spoken text
 * (the engine's preparation), not to the markup.
 */
export function isSsmlText(text: string, textType?: string | null): boolean {
  return textType === 'ssml' || /^\uFEFF?\s*(?:<speak[\s>/]|<\?xml[\s?]|<!DOCTYPE)/iu.test(text);
}
