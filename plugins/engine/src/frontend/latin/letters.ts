/** Latin letters spelled out (acronyms): the names Arabic speakers use (جي بي إس), or English ones mapped to the voice. */
export type LetterNames = 'arabic' | 'english';

export const ARABIC_LETTER_NAMES: Record<string, string> = {
  a: 'إِيه', b: 'بِي', c: 'سِي', d: 'دِي', e: 'إِي', f: 'إِفْ', g: 'جِي', h: 'إِتْشْ', i: 'أَايْ', j: 'جِيه', k: 'كِيه', l: 'إِلْ', m: 'إِمْ',
  n: 'إِنْ', o: 'أُو', p: 'بِي', q: 'كْيُو', r: 'أَارْ', s: 'إِسْ', t: 'تِي', u: 'يُو', v: 'فِي', w: 'دَبْلْيُو', x: 'إِكْسْ', y: 'وَايْ', z: 'زِدْ',
};

/** English letter names in IPA (espeak reads a lone "A" as the article, so they are not asked of it). */
export const ENGLISH_LETTER_NAMES: Record<string, string> = {
  a: 'ˈeɪ', b: 'bˈiː', c: 'sˈiː', d: 'dˈiː', e: 'ˈiː', f: 'ˈɛf', g: 'dʒˈiː', h: 'ˈeɪtʃ', i: 'ˈaɪ', j: 'dʒˈeɪ', k: 'kˈeɪ', l: 'ˈɛl', m: 'ˈɛm',
  n: 'ˈɛn', o: 'ˈoʊ', p: 'pˈiː', q: 'kjˈuː', r: 'ˈɑːɹ', s: 'ˈɛs', t: 'tˈiː', u: 'jˈuː', v: 'vˈiː', w: 'dˈʌbəljuː', x: 'ˈɛks', y: 'wˈaɪ', z: 'zˈiː',
};

/** The base letter of a Latin letter with accents (é → e), lower case. */
export function baseLetter(ch: string): string {
  return ch.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}
