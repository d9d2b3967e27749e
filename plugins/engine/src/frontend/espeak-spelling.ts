import { mapTextParts } from './raw.js';

/**
 * Diacritized Arabic respelled where espeak-ng misreads it: the silent alif after the plural و and the
 * article's after بِ/كَ dropped, the unwritten long ā of هذا، ذلك، لكن… written (hts/labels.ts has its own rules).
 */
const WORD_END = '(?=$|[^\\p{L}\\p{M}])';
const SILENT_ALIF = new RegExp(`([\\u064f\\u064e]\\u0648\\u0652?)\\u0627${WORD_END}`, 'gu');
/** Words whose first letter is followed by an unwritten ā (bare letters, clitics removed). */
const HIDDEN_ALIF_WORDS = new Set(['هذا', 'هذه', 'هذان', 'هذين', 'هؤلاء', 'هكذا', 'ذلك', 'ذلكم', 'لكن', 'لكنه', 'لكنها', 'لكنهم', 'لكني', 'لكننا']);
const CLITICS = /^(?:[وف])?(?:[بلك])?/u;
const ARABIC_WORD = /[\p{L}\p{M}]+/gu;
const bare = (w: string) => w.replace(/[\u064b-\u0652]/gu, '');

function withHiddenAlif(word: string): string {
  const b = bare(word);
  const clitic = CLITICS.exec(b)![0];
  // ل before لكن is not a clitic (لكن itself starts with ل)
  const candidates = [clitic, clitic.slice(0, -1), ''].filter((c, i, a) => a.indexOf(c) === i);
  for (const c of candidates) {
    if (!HIDDEN_ALIF_WORDS.has(b.slice(c.length))) continue;
    // Position (in code units of `word`) right after the stem's first letter and its marks.
    let letters = 0, i = 0;
    for (; i < word.length; i++) {
      if (!/[\u064b-\u0652]/u.test(word[i]!)) {
        if (letters === c.length + 1) break;
        letters++;
      }
    }
    const head = word.slice(0, i).replace(/[\u064b-\u0652]+$/u, '');
    return `${head}\u064eا${word.slice(i)}`;
  }
  return word;
}

/** بِ/كَ + the article: espeak reads the diacritized بِالْكِتَابِ as bi a:l kita:bi; without the silent alif, bilkita:bi. */
const CLITIC_ARTICLE = /(?<![\p{L}\p{M}])((?:[وف]\u064e?)?[بك][\u064e\u0650])ا(?=ل)/gu;

/** The article joined to hamzat al-wasl (الِاقْتِصَادُ): espeak reads the alif as a:, so it goes. */
const ARTICLE_WASL = /(ل\u0650)ا(?=[\u0621-\u064a])/gu;
/** …and after و/ف its own alif goes too (وَالِاسْتِثْمَارِ → wa listiθma:ri, not wa:listiθma:ri). */
const CLITIC_ARTICLE_WASL = /(?<![\p{L}\p{M}])([وف]\u064e?)ا(ل\u0650)(?=[\u0621-\u064a])/gu;

export function spellForEspeak(text: string): Promise<string> {
  return mapTextParts(text, (part) => part.replace(SILENT_ALIF, '$1').replace(CLITIC_ARTICLE, '$1').replace(ARTICLE_WASL, '$1').replace(CLITIC_ARTICLE_WASL, '$1$2').replace(ARABIC_WORD, withHiddenAlif));
}
