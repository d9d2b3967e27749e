/**
 * Cleanups every engine needs: Unicode NFC, tatweel, zero-width and bidi
 * marks, emoji (with their modifiers and joiners), Braille patterns, Quranic annotation signs
 * and diacritics left without a letter; shadda placed before the short vowel
 * (espeak-ng drops the vowel in Unicode's canonical order).
 */
const TATWEEL = /\u0640/gu;
const INVISIBLE = /[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/gu;
// eslint-disable-next-line no-misleading-character-class -- modifiers and keycap marks are matched one by one on purpose
const EMOJI = /(?:\p{Extended_Pictographic}|[\u{1F1E6}-\u{1F1FF}\u{1F3FB}-\u{1F3FF}\u{FE00}-\u{FE0F}\u20e3\u{E0020}-\u{E007F}])+/gu;
const QURANIC = /[\u0610-\u061a\u06d6-\u06dc\u06de-\u06e8\u06ea-\u06ed]/gu;
/**
 * Braille patterns: espeak-ng 1.51 reads one by naming its dots (numbers.c, LookupLetter), each dot a
 * number word, into a fixed buffer; with seven or eight dots (U+28DF, U+28EF, U+28FF) the Arabic
 * number names overflow it and glibc aborts the process ("buffer overflow detected"; found by
 * `npm run fuzz`; a sweep of U+0000–U+2FFFF found no other single character that does).
 */
const BRAILLE = /[\u2800-\u28ff]+/gu;
const ORPHAN_MARKS = /(^|[^\p{L}\u064b-\u0652\u0670])[\u064b-\u0652\u0670]+/gu;
const SHORT_VOWEL_THEN_SHADDA = /([\u064b-\u0650\u0652])\u0651/gu;

export function cleanup(text: string): string {
  return text
    .normalize('NFC')
    .replace(/(^|[^\p{L}])([وف]?[بل])\u0640+\s*(?=[\d\u0660-\u0669\u06f0-\u06f9])/gu, '$1$2')
    .replace(TATWEEL, '')
    .replace(INVISIBLE, '')
    .replace(EMOJI, ' ')
    .replace(BRAILLE, ' ')
    .replace(QURANIC, '')
    .replace(ORPHAN_MARKS, '$1')
    .replace(/[ \t\r\f\v\u00a0]+/gu, ' ');
}

/** The last step: shadda before the vowel, white space collapsed. */
export function finish(text: string): string {
  return text
    .replace(SHORT_VOWEL_THEN_SHADDA, '\u0651$1')
    .replace(/[ \t\r\f\v]+/gu, ' ')
    .replace(/ *\n */gu, '\n')
    .trim();
}
