/**
 * Phoneme passages (`[[ … ]]`, the x-sawt notation: espeak-ng's Arabic mnemonics), however they enter
 * a request, checked against what a model can say and capped in length.
 */
import { errors } from '@sawt/core';
import { RAW_SPAN } from './raw.js';

/**
 * Every mnemonic of espeak-ng 1.51's `ar` phoneme table (base + base1 + ph_arabic), longest first: cut
 * by longest match as EncodePhonemes cuts, the validator sees the symbols espeak reads (the test keeps it equal to the phontab).
 */
export const ESPEAK_AR_TABLE: readonly string[] = [
  '%', '%%', ',', ',,', "'", "''", '=', "'!", '_:', '_', '_!', ':', '@', '@-', '||', '*', '1', '#X1', '?', '-', '_^_', '_X1', '_|', '_::',
  't#', '_;_', '#@', '#a', '#e', '#i', '#o', '#u', 'r', 'a', 'e', 'i', ';', 'o', 'u', 'm-', 'n-', 'N-', 'r-', 'l-', 'r/', 't', 'p', 'k',
  'n', 'R', 'R2', 'R3', 'r"', 'l', 'l/', 'j', 'w', 'l/2', 'l/3', 'l^', 'l.', 'L/', 'L', 'h', 'm', 'n.', 'n^', 'N', '**', 'r.', 'b', 'd',
  'd[', 't[', 'dZ', 'tS', 'dZ;', 'tS;', 'J', 'c', 'g', 'B', 'f', 'v', 'v#', 'D', 'T', 'z', 's', 'Z', 'S', 'z.', 's.', 'z;', 's;', 'Z;',
  'S;', 'J^', 'C', 'Q', 'x', 'Q^', 'Q"', 'q', 'l#', 'X', '#r', 'H', 'A', 'gH', 'dH', 's[', 'a.', 'i.', 'u.',
].slice().sort((a, b) => b.length - a.length);

/** espeak's controls, never accepted: a table switch (`_^_`), word and clause breaks, its rules' virtual phonemes. */
const ESPEAK_CONTROLS = new Set(['||', '1', '#X1', '-', '_^_', '_X1', '_|', 't#', '_;_', '#@', '#a', '#e', '#i', '#o', '#u', '#r']);

/**
 * Caps, from what espeak-ng 1.51 survives (measured: test-artifacts probes, each input in a child process).
 * - symbolsPerWord: espeak encodes a phoneme word into a 200-byte buffer (N_WORD_PHONEMES), one byte
 *   per symbol, with no bound check (EncodePhonemes): 201 to 351 symbols overwrite its neighbours
 *   silently and 352 or more segfault (`a` × 352, `a:` × 176: the server's crash). 64 keeps a word a
 *   third of the buffer, with room for the stress marks espeak adds, and is 3× a long Arabic word.
 * - passageChars: espeak reads a clause into an 800-byte buffer and cuts it near 725 bytes; each clause
 *   starts outside phoneme mode, so a passage that runs past the cut has its tail read as English text
 *   (measured: 150 × `ba:` in one passage reads right, 190 × reads `(en)bˈɑː`). A segment holds up to
 *   240 characters of Arabic text (480 bytes) beside its passages: 200 characters keep the clause whole.
 * - symbolsPerText: all passages of one text together (a minute or so of speech), so that a text
 *   cannot hand the engine unbounded phoneme input that the segmenter cannot cut.
 */
export const PHONEME_PASSAGE_LIMITS = { symbolsPerWord: 64, passageChars: 200, symbolsPerText: 1000 } as const;

export type PhonemeLimits = { readonly symbolsPerWord: number; readonly passageChars: number; readonly symbolsPerText: number };

/** What a model can say, in x-sawt symbols. */
export interface PhonemeInventory {
  /** The model (or engine) named in errors, e.g. "sawt-mini". */
  readonly model: string;
  /** True when the model can say `symbol` (one symbol of ESPEAK_AR_TABLE). */
  says(symbol: string): boolean;
}

export interface PhonemePassage {
  /** Offsets of the passage in the text, brackets included. */
  start: number;
  end: number;
  /** The passage's words, each as its symbols (the `|` separator dropped). */
  words: string[][];
}

/** espeak's phoneme words are separated by ASCII white space (isspace on bytes below 0x80). */
const WORD_SPACE = /[ \t\n\v\f\r]+/u;

/** One phoneme word cut into symbols as espeak cuts it; `unknown`: the first text no symbol matches (the cut stops there unless `skipUnknown`). */
export function tokenizeWord(word: string, skipUnknown = false): { symbols: string[]; unknown?: string } {
  const symbols: string[] = [];
  let unknown: string | undefined;
  let i = 0;
  while (i < word.length) {
    if (word[i] === '|' && word[i + 1] !== '|') {
      i++; // espeak's separator between symbols that would otherwise read as one
      continue;
    }
    const symbol = ESPEAK_AR_TABLE.find((s) => word.startsWith(s, i));
    if (!symbol) {
      const ch = String.fromCodePoint(word.codePointAt(i)!);
      unknown ??= ch;
      if (!skipUnknown) break;
      i += ch.length;
      continue;
    }
    symbols.push(symbol);
    i += symbol.length;
  }
  return unknown === undefined ? { symbols } : { symbols, unknown };
}

/** The passages of `text` ([[ … ]]) with their words cut into symbols (no check). */
export function parsePhonemePassages(text: string): Array<PhonemePassage & { inner: string; unknown?: string }> {
  const out: Array<PhonemePassage & { inner: string; unknown?: string }> = [];
  for (const m of text.matchAll(RAW_SPAN)) {
    const inner = m[0].slice(2, -2);
    const words: string[][] = [];
    let unknown: string | undefined;
    for (const w of inner.split(WORD_SPACE)) {
      if (!w) continue;
      const t = tokenizeWord(w);
      unknown ??= t.unknown;
      words.push(t.symbols);
    }
    out.push({ start: m.index, end: m.index + m[0].length, inner, words, ...(unknown !== undefined && { unknown }) });
  }
  return out;
}

const show = (s: string) => (/^[\x21-\x7e]+$/u.test(s) ? `'${s}'` : `'${s}' (U+${s.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`);

/** Checks every [[ … ]] passage of `text` against `inventory` and the caps: 400 / 40001 naming the symbol (or cap) and the model. */
export function checkPhonemePassages(text: string, inventory: PhonemeInventory, limits: PhonemeLimits = PHONEME_PASSAGE_LIMITS): PhonemePassage[] {
  const passages = parsePhonemePassages(text);
  let total = 0;
  for (const p of passages) {
    const where = `phoneme passage [[${p.inner.length > 40 ? `${p.inner.slice(0, 40)}…` : p.inner}]]`;
    if (p.inner.length > limits.passageChars) {
      throw errors.validation(`${where} is ${p.inner.length} characters long; at most ${limits.passageChars} per passage (split it into several)`);
    }
    if (p.unknown !== undefined) {
      throw errors.validation(`${where}: ${show(p.unknown)} is not a phoneme symbol of the x-sawt notation (espeak-ng Arabic mnemonics), which ${inventory.model} reads`);
    }
    for (const word of p.words) {
      for (const s of word) {
        if (ESPEAK_CONTROLS.has(s) || !inventory.says(s)) throw errors.validation(`${where}: ${inventory.model} cannot say the phoneme ${show(s)}`);
      }
      if (word.length > limits.symbolsPerWord) {
        throw errors.validation(`${where} has a word of ${word.length} phoneme symbols; at most ${limits.symbolsPerWord} per word`);
      }
      total += word.length;
    }
  }
  if (total > limits.symbolsPerText) throw errors.validation(`the text's phoneme passages hold ${total} phoneme symbols; at most ${limits.symbolsPerText} per text`);
  return passages;
}

/**
 * The last guard before espeak reads front-end output, whatever stage wrote its passages: words over the
 * per-word cap are split and controls dropped, so nothing overruns espeak's unchecked word buffer.
 */
export function guardPhonemeWords(text: string, limits: Pick<PhonemeLimits, 'symbolsPerWord'> = PHONEME_PASSAGE_LIMITS): string {
  if (!text.includes('[[')) return text;
  return text.replace(RAW_SPAN, (span) => {
    const inner = span.slice(2, -2);
    let changed = false;
    const words = inner.split(WORD_SPACE).filter(Boolean).map((w) => {
      const { symbols } = tokenizeWord(w, true);
      const kept = symbols.filter((s) => !ESPEAK_CONTROLS.has(s));
      // Text that is no symbol is skipped by espeak (a dialect rule's own notation): left as written.
      if (kept.length === symbols.length && symbols.length <= limits.symbolsPerWord) return w;
      changed = true;
      const pieces: string[] = [];
      for (let i = 0; i < kept.length; i += limits.symbolsPerWord) pieces.push(kept.slice(i, i + limits.symbolsPerWord).join('|'));
      return pieces.join(' ');
    });
    return changed ? `[[${words.filter(Boolean).join(' ')}]]` : span;
  });
}

/** espeak-ng's Arabic voice: every sound of its table (sawt-mini; Piper voices read passages through it too). */
export function espeakInventory(model: string): PhonemeInventory {
  return { model, says: (s) => ESPEAK_AR_TABLE.includes(s) && !ESPEAK_CONTROLS.has(s) };
}

/**
 * x-sawt symbols → the HTS voice's phones (../shared/models/hts/LABELS.md): its own sound or the one an Arabic
 * speaker says for it (as the Latin reader: p → b, e → i, o → u, g → G). Symbols absent here it cannot say.
 */
const HTS_OF_ESPEAK: Record<string, string> = {
  '?': 'ah', 'b': 'b', 'p': 'b', 't': 't', 'T': '^', 'dZ': 'j', 'J': 'j', 'H': 'H', 'X': 'x', 'x': 'x', 'd': 'd', 'D': 'th',
  'r': 'r', 'R': 'r', 'R2': 'r', 'R3': 'r', '*': 'r', '**': 'r', 'r/': 'r', 'r.': 'r', 'z': 'z', 's': 's', 'S': 'ch', 's[': 'S', 'dH': 'D',
  't[': 'T', 'd[': 'D', 'Z': 'Z', 'A': 'E', 'Q': 'g', 'gH': 'g', 'f': 'f', 'v': 'v', 'q': 'q', 'k': 'k', 'g': 'G', 'l': 'l', 'l/': 'l', 'L': 'l',
  'l.': 'l', 'l^': 'l', 'm': 'm', 'n': 'n', 'h': 'h', 'w': 'w', 'j': 'y',
  'a': 'a', 'i': 'i', 'u': 'u', 'a.': 'A', 'i.': 'I', 'u.': 'U', 'e': 'i', 'o': 'u', '@': 'a',
};
const HTS_STRESS = new Set(['%', '%%', ',', ',,', "'", "''", "'!", '=']);
const HTS_LONG: Record<string, string> = { a: 'aa', i: 'ii', u: 'uu', A: 'AA', I: 'II', U: 'UU' };
/** Consonants the voice has a geminate of (a doubled name; the hamza's is ahh). */
const HTS_GEMINABLE = new Set(['ah', 'b', 't', '^', 'j', 'H', 'x', 'd', 'th', 'r', 'z', 's', 'ch', 'S', 'D', 'T', 'Z', 'E', 'g', 'f', 'q', 'k', 'l', 'm', 'n', 'h', 'w', 'y', 'G']);

/** The HTS voice (sawt-hts): symbols with an HTS phone, stress marks, and `:` (a long vowel). */
export function htsInventory(model: string): PhonemeInventory {
  return { model, says: (s) => s in HTS_OF_ESPEAK || HTS_STRESS.has(s) || s === ':' };
}

/** One passage word (checked by htsInventory) as HTS phones: `:` lengthens a vowel, two equal consonants geminate, stress goes. */
export function htsPhonesOf(symbols: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of symbols) {
    if (HTS_STRESS.has(s)) continue;
    const last = out[out.length - 1];
    if (s === ':') {
      if (last !== undefined && HTS_LONG[last]) out[out.length - 1] = HTS_LONG[last];
      continue;
    }
    const phone = HTS_OF_ESPEAK[s];
    if (phone === undefined) continue;
    if (last === phone && HTS_GEMINABLE.has(phone)) out[out.length - 1] = phone === 'ah' ? 'ahh' : phone + phone;
    else out.push(phone);
  }
  return out;
}
