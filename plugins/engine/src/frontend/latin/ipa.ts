/**
 * espeak-ng IPA of a Latin word mapped onto an Arabic voice's phones, as an Arabic speaker says it: espeak's
 * Arabic table (it has p, v, g, e, o, tS), or the HTS voice's (p → b, g → غ, e → i, o → u).
 */
export type PhoneSet = 'espeak' | 'hts';

/** IPA → [espeak-ng Arabic mnemonics, HTS phones (space-separated)]. Longest match first. */
const TABLE: Record<string, [string, string]> = {
  // vowels and diphthongs
  'aɪə': ['aje', 'a y a'], 'aʊə': ['awe', 'a w a'],
  'aɪ': ['aj', 'a y'], 'eɪ': ['e:', 'ii'], 'ɔɪ': ['oj', 'u y'], 'aʊ': ['aw', 'a w'], 'oʊ': ['o:', 'uu'], 'əʊ': ['o:', 'uu'],
  'ɪə': ['i:e', 'ii a'], 'iə': ['i:e', 'ii a'], 'eə': ['e:', 'ii'], 'ɛə': ['e:', 'ii'], 'ʊə': ['u:', 'uu'],
  'iː': ['i:', 'ii'], 'uː': ['u:', 'uu'], 'ɑː': ['a:', 'aa'], 'ɔː': ['o:', 'uu'], 'ɜː': ['er', 'i r'], 'aː': ['a:', 'aa'],
  'eː': ['e:', 'ii'], 'oː': ['o:', 'uu'], 'ɛː': ['e:', 'ii'], 'yː': ['i:', 'ii'], 'øː': ['e:', 'ii'],
  'ɑ̃': ['an', 'a n'], 'ɔ̃': ['on', 'u n'], 'ɛ̃': ['en', 'i n'], 'œ̃': ['en', 'i n'],
  'i': ['i', 'i'], 'ɪ': ['i', 'i'], 'ᵻ': ['i', 'i'], 'ɨ': ['i', 'i'], 'y': ['i', 'i'], 'ʏ': ['i', 'i'],
  'e': ['e', 'i'], 'ɛ': ['e', 'i'], 'ø': ['e', 'i'], 'œ': ['e', 'i'],
  'æ': ['a', 'a'], 'a': ['a', 'a'], 'ɐ': ['a', 'a'], 'ɑ': ['a', 'a'], 'ʌ': ['a', 'a'], 'ə': ['e', 'a'],
  'ɚ': ['er', 'a r'], 'ɝ': ['er', 'i r'], 'ɜ': ['er', 'i r'],
  'ɒ': ['o', 'u'], 'ɔ': ['o', 'u'], 'o': ['o', 'u'],
  'ʊ': ['u', 'u'], 'u': ['u', 'u'], 'ɯ': ['u', 'u'],
  // consonants
  'tʃ': ['tS', 't ch'], 'dʒ': ['dZ', 'j'], 'tɕ': ['tS', 't ch'], 'dʑ': ['dZ', 'j'], 'ɕ': ['S', 'ch'], 'ʑ': ['dZ', 'j'], 'ʂ': ['S', 'ch'], 'ʐ': ['dZ', 'j'], 'ts': ['ts', 't s'], 'dz': ['dz', 'd z'],
  'p': ['p', 'b'], 'b': ['b', 'b'], 't': ['t', 't'], 'd': ['d', 'd'], 'k': ['k', 'k'], 'ɡ': ['g', 'g'], 'g': ['g', 'g'],
  'f': ['f', 'f'], 'v': ['v', 'v'], 'θ': ['T', '^'], 'ð': ['D', 'th'], 's': ['s', 's'], 'z': ['z', 'z'],
  'ʃ': ['S', 'ch'], 'ʒ': ['dZ', 'j'], 'h': ['h', 'h'], 'x': ['X', 'x'], 'χ': ['X', 'x'], 'ç': ['S', 'ch'], 'ɣ': ['gH', 'g'],
  'm': ['m', 'm'], 'n': ['n', 'n'], 'ŋ': ['ng', 'n g'], 'ɲ': ['nj', 'n y'], 'l': ['l', 'l'], 'ɫ': ['l', 'l'], 'ʎ': ['lj', 'l y'],
  'ɹ': ['r', 'r'], 'r': ['r', 'r'], 'ʁ': ['gH', 'g'], 'ɻ': ['r', 'r'], 'ɾ': ['t', 't'],
  'w': ['w', 'w'], 'j': ['j', 'y'], 'ʔ': ['?', 'ah'], 'β': ['b', 'b'], 'ɦ': ['h', 'h'], 'c': ['k', 'k'], 'ɟ': ['dZ', 'j'],
};
const KEYS = Object.keys(TABLE).sort((a, b) => b.length - a.length);
const HTS_VOWELS = new Set(['a', 'i', 'u', 'aa', 'ii', 'uu']);
const ESPEAK_VOWEL = /^[aeiou]/u;

export interface MappedWord {
  /** espeak-ng Arabic mnemonics, stress marks included. */
  espeak: string;
  hts: string[];
}

/** One word's IPA (no spaces) in both phone sets; a vowel-initial word gets the glottal stop Arabic puts there. */
export function mapIpaWord(ipa: string, lang = 'en-us'): MappedWord {
  // espeak's English ɾ is a flapped t (computer); elsewhere it is a tapped r (señor)
  const flap: [string, string] = lang.startsWith('en') ? ['t', 't'] : ['r', 'r'];
  let espeak = '';
  const hts: string[] = [];
  let i = 0;
  const text = ipa.normalize('NFC');
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === 'ˈ' || ch === 'ˌ') {
      espeak += ch === 'ˈ' ? "'" : ',';
      i++;
      continue;
    }
    const key = KEYS.find((k) => text.startsWith(k, i));
    if (!key) {
      i++; // length marks after consonants, syllabic and other diacritics, tie bars, unknown symbols
      continue;
    }
    const [e, h] = key === 'ɾ' ? flap : TABLE[key]!;
    espeak += e;
    hts.push(...h.split(' '));
    i += key.length;
  }
  if (hts.length && HTS_VOWELS.has(hts[0]!)) hts.unshift('ah');
  if (ESPEAK_VOWEL.test(espeak.replace(/^['',]+/u, ''))) espeak = espeak.replace(/^(['',]*)/u, '$1?');
  return { espeak, hts };
}
