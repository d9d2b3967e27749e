/**
 * Cleanups every engine needs: Unicode NFC, tatweel, zero-width and bidi
 * marks, emoji (with their modifiers and joiners), Braille patterns, scripts that espeak-ng reads with
 * another language's translator (Greek letters kept apart), Quranic annotation signs
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
/**
 * Scripts that espeak-ng 1.51 reads with another language's translator: a word in Armenian, an Indic
 * script, Georgian or Hangul (or starting with a Greek letter) is translated by its "translator2";
 * when that translator cannot name one of the word's characters (a rare or unassigned code point, a
 * letter of yet another script, a Hangul syllable spelled jamo by jamo), it switches translator2 to
 * another language, which frees the very translator still reading the word (translate.c
 * SetTranslator2, called from numbers.c LookupLetter/TranslateLetter; fixed upstream after 1.51 by
 * "Add tertiary translator", 1da9ad10). The freed memory is read: a segfault once it has been reused
 * (found by `npm run fuzz`: U+10CE, U+0CFC, U+11DD; confirmed under valgrind). Sawt's voices speak
 * Arabic: these scripts are dropped, except the Greek letters, which are kept as words of their own
 * (a Greek letter glued to any other letter is what triggers it).
 */
// eslint-disable-next-line no-misleading-character-class -- whole scripts, their combining marks included on purpose
const ESPEAK_SWITCHING = /[\u0370-\u0385\u0387\u038b\u038d\u03a2\u03cf-\u03ff\u0530-\u058f\u0900-\u0dff\u10a0-\u11ff\u1c90-\u1cbf\u1f00-\u1fff\u2d00-\u2d2f\u3130-\u318f\ua700-\ud7ff\ufb13-\ufb17\uffa0-\uffdc]+/gu;
const GREEK_LETTERS = /[\u0386\u0388-\u038a\u038c\u038e-\u03a1\u03a3-\u03ce]+/gu;
const ORPHAN_MARKS = /(^|[^\p{L}\u064b-\u0652\u0670])[\u064b-\u0652\u0670]+/gu;
const SHORT_VOWEL_THEN_SHADDA = /([\u064b-\u0650\u0652])\u0651/gu;

export function cleanup(text: string): string {
  return text
    .normalize('NFC')
    // بـ 5، الـ 48، والـ 30، بالـ 5: a clitic or the article written apart from its number joins it.
    .replace(/(^|[^\p{L}])([وف]?(?:[بلك]?ال|[بل]))\u0640+\s*(?=[\d\u0660-\u0669\u06f0-\u06f9])/gu, '$1$2')
    .replace(TATWEEL, '')
    .replace(INVISIBLE, '')
    .replace(EMOJI, ' ')
    .replace(BRAILLE, ' ')
    .replace(ESPEAK_SWITCHING, ' ')
    .replace(GREEK_LETTERS, ' $& ')
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
