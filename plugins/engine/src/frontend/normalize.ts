/**
 * Light normalization every engine needs before synthesis: Unicode NFC, tatweel
 * and zero-width marks removed, white space collapsed, shadda placed before the
 * short vowel (espeak-ng drops the vowel in Unicode's canonical order).
 * Number reading, diacritization and dialect rules are later stages.
 */
const TATWEEL = /\u0640/gu;
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu;
const SHORT_VOWEL_THEN_SHADDA = /([\u064b-\u0650\u0652])\u0651/gu;

export function normalizeText(text: string): string {
  return text
    .normalize('NFC')
    .replace(TATWEEL, '')
    .replace(INVISIBLE, '')
    .replace(SHORT_VOWEL_THEN_SHADDA, '\u0651$1')
    .replace(/[ \t\r\f\v]+/gu, ' ')
    .trim();
}
