/**
 * How a Latin-script token inside Arabic text is spoken: lexicon names as listed, plain ASCII words as
 * English (what Latin script in Arabic text overwhelmingly is), words with other letters by the language
 * they point to, acronyms (and vowelless URL parts) spelled.
 */
export type Part = { spell: string } | { word: string; lang: string } | { lexicon: string };

const VOWEL = /[aeiouy]/iu;
const TWO_LETTER_WORDS = new Set(['a', 'an', 'am', 'as', 'at', 'be', 'by', 'do', 'go', 'he', 'hi', 'if', 'in', 'is', 'it', 'me', 'my', 'no', 'of', 'oh', 'on', 'or', 'so', 'to', 'up', 'we']);

const LANGUAGE_LETTERS: Array<[RegExp, string]> = [
  [/[şğı]/iu, 'tr'], [/[ãõ]/iu, 'pt'], [/[ñ¿¡]/iu, 'es'], [/[äöüß]/iu, 'de'], [/[åøæ]/iu, 'da'],
  [/[łśźżąęćń]/iu, 'pl'], [/[čřěůšž]/iu, 'cs'], [/[éèêëçàâîïôûùÿœ]/iu, 'fr'], [/[áíóúý]/iu, 'es'],
];

/** espeak-ng voice for a word's letters. */
export function languageOf(word: string): string {
  for (const [re, lang] of LANGUAGE_LETTERS) if (re.test(word)) return lang;
  return 'en-us';
}

function isAcronym(part: string): boolean {
  const letters = part.replace(/\./gu, '');
  if (letters.length === 1) return true;
  if (/^\p{Lu}+$/u.test(letters)) {
    if (letters.length <= 4 || !VOWEL.test(letters)) return true;
    // longer capitals read as a word only when they look like one (UNESCO, BREAKING), not HTTPS
    return /[^AEIOUY]{4,}/u.test(letters) || (letters.match(/[AEIOUY]/gu) ?? []).length < 2;
  }
  if (/^\p{Ll}+$/u.test(letters)) return !VOWEL.test(letters) || (letters.length === 2 && !TWO_LETTER_WORDS.has(letters));
  return false;
}

/**
 * Splits a token into parts. `inLexicon` answers for whole tokens and camel-case pieces.
 * iPhone → i + Phone, ChatGPT → Chat + GPT, U.S.A → spelled; WhatsApp stays one English word.
 */
export function tokenParts(token: string, inLexicon: (w: string) => boolean): Part[] {
  if (inLexicon(token)) return [{ lexicon: token }];
  if (/^(?:\p{L}\.)+\p{L}?$/u.test(token)) return [{ spell: token.replace(/\./gu, '') }];
  const pieces = token.match(/\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+(?:['’]\p{Ll}+)?|\p{Lu}|[^\p{Lu}\p{Ll}]+/gu) ?? [token];
  const parts: Part[] = [];
  const whole = pieces.every((p) => /\p{Ll}/u.test(p) && p.length > 1) || pieces.length === 1;
  for (const p of whole ? [token] : pieces) {
    if (!/\p{L}/u.test(p)) continue;
    if (inLexicon(p)) parts.push({ lexicon: p });
    else if (isAcronym(p)) parts.push({ spell: p.replace(/[^\p{L}]/gu, '') });
    else parts.push({ word: p.replace(/[’]/gu, "'"), lang: languageOf(p) });
  }
  return parts;
}
