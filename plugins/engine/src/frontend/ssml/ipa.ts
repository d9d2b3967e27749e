/**
 * IPA → x-sawt (the `[[…]]` notation: espeak-ng's Arabic mnemonics, phoneme-passages.ts), for
 * SSML's <phoneme alphabet="ipa"> and the phoneme rules of pronunciation dictionaries. Unlike the
 * Latin-word reader's mapping (latin/ipa.ts, which skips what it cannot map), a symbol with no
 * x-sawt counterpart is a 400 naming it: a user's pronunciation is never silently changed.
 * Whether the model can say the result is checked afterwards, per model (checkPhonemePassages).
 */
import { errors } from '@sawt/core';
import { tokenizeWord } from '../phoneme-passages.js';

/** IPA (as Arabic phonology writes it) → x-sawt symbols. Emphatics: ˤ or ˠ after the consonant. */
const BASE: Record<string, string> = {
  'ʔ': '?', 'b': 'b', 'p': 'p', 't': 't', 'θ': 'T', 'dʒ': 'dZ', 'd͡ʒ': 'dZ', 'ʤ': 'dZ', 'ʒ': 'dZ', 'tʃ': 'tS', 't͡ʃ': 'tS', 'ʧ': 'tS',
  'ħ': 'H', 'x': 'X', 'χ': 'X', 'd': 'd', 'ð': 'D', 'r': 'r', 'ɾ': 'r', 'ɹ': 'r', 'z': 'z', 's': 's', 'ʃ': 'S',
  'sˤ': 's[', 'dˤ': 'dH', 'tˤ': 't[', 'ðˤ': 'Z', 'zˤ': 'Z', 'lˤ': 'l.', 'ɫ': 'l.',
  'ʕ': 'A', 'ɣ': 'Q', 'ʁ': 'Q', 'f': 'f', 'v': 'v', 'q': 'q', 'k': 'k', 'g': 'g', 'ɡ': 'g', 'l': 'l', 'm': 'm', 'n': 'n',
  'h': 'h', 'w': 'w', 'j': 'j',
  'a': 'a', 'æ': 'a', 'ɐ': 'a', 'ɑ': 'a.', 'i': 'i', 'ɪ': 'i', 'u': 'u', 'ʊ': 'u', 'e': 'e', 'ɛ': 'e', 'o': 'o', 'ɔ': 'o', 'ə': '@',
  'ː': ':', ':': ':', 'ˈ': "'", 'ˌ': ',',
};
const TABLE: Record<string, string> = { ...BASE };
for (const [k, v] of Object.entries(BASE)) if (k.endsWith('ˤ')) TABLE[`${k.slice(0, -1)}ˠ`] = v;
const KEYS = Object.keys(TABLE).sort((a, b) => b.length - a.length);
/** Syllable breaks and linking marks: no sound of their own. */
const SILENT = new Set(['.', '‿', '\u0361']);

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Joins x-sawt symbols into one word, with espeak's `|` only where two would read as another symbol (d + H is dH). */
export function joinSymbols(symbols: readonly string[]): string {
  let word = '';
  const done: string[] = [];
  for (const s of symbols) {
    const plain = word + s;
    const cut = tokenizeWord(plain).symbols;
    const same = cut.length === done.length + 1 && cut.every((c, i) => c === (i < done.length ? done[i] : s));
    word = same ? plain : `${word}|${s}`;
    done.push(s);
  }
  return word;
}

/**
 * An IPA transcription (words separated by spaces) in x-sawt; `where` names the source in errors
 * (e.g. "<phoneme> at 2:5"). Throws 400 / 40001 naming a symbol it cannot map.
 */
export function ipaToXSawt(ipa: string, where: string): string {
  const words: string[] = [];
  for (const word of ipa.normalize('NFC').trim().split(/\s+/u)) {
    if (!word) continue;
    const symbols: string[] = [];
    let i = 0;
    while (i < word.length) {
      const key = KEYS.find((k) => word.startsWith(k, i));
      if (key) {
        symbols.push(TABLE[key]!);
        i += key.length;
        continue;
      }
      const ch = String.fromCodePoint(word.codePointAt(i)!);
      if (!SILENT.has(ch)) throw errors.validation(`${where}: the IPA symbol '${ch}' (${codePoint(ch)}) has no x-sawt phoneme; write the passage in alphabet x-sawt instead`);
      i += ch.length;
    }
    if (symbols.length) words.push(joinSymbols(symbols));
  }
  if (!words.length) throw errors.validation(`${where}: the IPA transcription is empty`);
  return words.join(' ');
}
