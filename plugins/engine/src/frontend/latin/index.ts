import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { phonemize } from '@sawt/native';
import { mapTextParts } from '../raw.js';
import { mapIpaWord, type PhoneSet } from './ipa.js';
import { ARABIC_LETTER_NAMES, ENGLISH_LETTER_NAMES, baseLetter, type LetterNames } from './letters.js';
import { htsPhoneSpan } from './phone-span.js';
import { tokenParts, type Part } from './words.js';

/**
 * Latin script inside Arabic text, read as an Arabic speaker reads it (a per-segment stage after
 * diacritization, so the diacritizer still sees the Arabic around it). Each Latin token, with the
 * Arabic clitics glued to it or written before it (الـAI, بـGoogle, و Netflix), becomes either
 * diacritized Arabic (a lexicon entry, acronym letters with Arabic names), which both voices read
 * as Arabic, or English (or French, German… by its letters) pronunciation from espeak-ng mapped onto
 * the voice's phones: [[espeak-ng Arabic phonemes]] for sawt-mini, an HTS phone span for sawt-hts.
 */
export interface LatinOptions {
  letterNames?: LetterNames;
  /** Operator entries (word → Arabic text or English respelling); they win over the built-in list. */
  lexicon?: Record<string, string>;
}

export const BUILTIN_LATIN_LEXICON = fileURLToPath(new URL('../../../lexicon/latin.json', import.meta.url));

const LATIN = '[A-Za-z\\u00c0-\\u024f](?:[A-Za-z\\u00c0-\\u024f]|[\'’.&-](?=[A-Za-z\\u00c0-\\u024f]))*';
/** A Latin token with what is glued before it, or a lone clitic word and one space. */
// eslint-disable-next-line no-misleading-character-class -- the harakat range is matched mark by mark on purpose
const TOKEN = new RegExp(`(?<![\\p{L}\\p{M}\\p{N}\\u0640])([\\u0621-\\u064a\\u064b-\\u0652]*?)(\\s?)(${LATIN})(?![\\p{L}\\p{N}])`, 'gu');
/** و/ف, then ب/ك/ل, then the article (لل = لِ + ال). */
const CLITICS = /^([وف])?([بكل])?(ال|(?<=ل)ل)?$/u;
const SUN_PHONES = new Set(['t', 'd', 's', 'z', 'n', 'r', 'l', '^', 'th', 'ch', 'T', 'D', 'S', 'Z', 'tS', 'dZ']);
const SUN_LETTERS = /^[تثدذرزسشصضطظلن]/u;
const PHRASE_START = /(?:^|[،,؛;:.!?؟…\n])\s*$/u;

interface SpokenWord { arabic?: string; espeak?: string; hts?: string[] }

const gemHts = (p: string) => (p === 'ah' ? 'ahh' : p + p);

export class LatinReader {
  private readonly lexicon = new Map<string, string>();
  private readonly cache = new Map<string, Promise<SpokenWord[]>>();
  private readonly letterNames: LetterNames;

  constructor(opts: LatinOptions = {}, builtinFile: string | null = BUILTIN_LATIN_LEXICON) {
    this.letterNames = opts.letterNames ?? 'arabic';
    const builtin = builtinFile ? (JSON.parse(readFileSync(builtinFile, 'utf8')) as { words: Record<string, string> }).words : {};
    for (const map of [builtin, opts.lexicon ?? {}]) for (const [k, v] of Object.entries(map)) this.lexicon.set(k.normalize('NFC'), v.normalize('NFC'));
  }

  private entry(word: string): string | undefined {
    return this.lexicon.get(word) ?? this.lexicon.get(word.toLowerCase());
  }

  /** Replaces every Latin token of `text` ([[ ]] spans left alone) by what `phoneSet`'s voice reads. */
  read(text: string, phoneSet: PhoneSet): Promise<string> {
    if (!/[A-Za-z\u00c0-\u024f]/u.test(text)) return Promise.resolve(text);
    return mapTextParts(text, (part) => this.readPart(part, phoneSet));
  }

  private async readPart(text: string, phoneSet: PhoneSet): Promise<string> {
    const jobs: Array<{ start: number; end: number; out: Promise<string> }> = [];
    for (const m of text.matchAll(TOKEN)) {
      const [all, glued, space, token] = m as unknown as [string, string, string, string];
      let start = m.index!;
      const bare = glued.replace(/[\u064b-\u0652\u0640]/gu, '');
      // The Arabic before it is a clitic only when it is all clitics (and, before a space, a word of its own).
      let clitics = CLITICS.exec(bare);
      let sep = '';
      if (!clitics || bare === '') {
        start += glued.length + space.length;
        clitics = null;
        if (glued && !space) sep = ' '; // a word glued to the Latin one (a typo) stays a word of its own
      }
      const before = text.slice(0, start);
      const phraseInitial = PHRASE_START.test(before);
      jobs.push({ start, end: m.index! + all.length, out: this.speak(token, clitics, phraseInitial, phoneSet).then((o) => sep + o) });
    }
    if (jobs.length === 0) return text;
    const outs = await Promise.all(jobs.map((j) => j.out));
    let result = '';
    let last = 0;
    jobs.forEach((j, i) => {
      result += text.slice(last, j.start) + outs[i];
      last = j.end;
    });
    return result + text.slice(last);
  }

  /** The spoken words of a token, as phones or Arabic text (cached per token). */
  words(token: string): Promise<SpokenWord[]> {
    let p = this.cache.get(token);
    if (!p) {
      if (this.cache.size > 5000) this.cache.clear();
      p = this.compute(token);
      this.cache.set(token, p);
      p.catch(() => this.cache.delete(token));
    }
    return p;
  }

  private async compute(token: string): Promise<SpokenWord[]> {
    const parts = tokenParts(token, (w) => this.entry(w) !== undefined);
    const out: SpokenWord[] = [];
    for (const part of parts) out.push(...(await this.partWords(part)));
    return out;
  }

  private async partWords(part: Part): Promise<SpokenWord[]> {
    if ('lexicon' in part) {
      const value = this.entry(part.lexicon)!;
      if (/[\u0600-\u06ff]/u.test(value)) return value.split(/\s+/u).filter(Boolean).map((arabic) => ({ arabic: withFinalSukun(arabic) }));
      return this.ipaWords(value, 'en-us');
    }
    if ('spell' in part) {
      const letters = [...part.spell].map(baseLetter).filter((l) => ARABIC_LETTER_NAMES[l]);
      if (this.letterNames === 'arabic') return letters.map((l) => ({ arabic: withFinalSukun(ARABIC_LETTER_NAMES[l]!) }));
      return letters.map((l) => mapIpaWord(ENGLISH_LETTER_NAMES[l]!, 'en-us'));
    }
    return this.ipaWords(part.word, part.lang);
  }

  private async ipaWords(text: string, lang: string): Promise<SpokenWord[]> {
    const ipa = (await phonemize(text, lang, 'ipa')).replace(/\([a-z-]+\)/gu, ' ');
    return ipa.split(/\s+/u).filter(Boolean).map((w) => mapIpaWord(w, lang)).filter((w) => w.hts.length > 0);
  }

  private async speak(token: string, clitics: RegExpExecArray | null, phraseInitial: boolean, phoneSet: PhoneSet): Promise<string> {
    const words = await this.words(token);
    if (words.length === 0) return '';
    const [, conj, prep, article] = clitics ?? [];
    const rendered = words.map((w, i) => {
      const first = i === 0;
      if (w.arabic !== undefined) return (first ? arabicClitics(conj, prep, article) : '') + (first && article ? withSunShadda(w.arabic) : w.arabic);
      if (phoneSet === 'espeak') return `[[${first ? espeakClitics(conj, prep, article, w.espeak!, phraseInitial) : w.espeak}]]`;
      return htsPhoneSpan(first ? htsClitics(conj, prep, article, w.hts!, phraseInitial) : w.hts!);
    });
    return rendered.join(' ');
  }
}

/** A final consonant without a mark gets its sukun (espeak-ng would add a vowel: تِيك → ti:ka). */
function withFinalSukun(word: string): string {
  if (!/[\u0621-\u064a]$/u.test(word) || /[اىوي]$/u.test(word)) return word;
  return `${word}\u0652`;
}

/** و/ف, ب/ك/ل and the article written with their vowels, glued to an Arabic reading. */
function arabicClitics(conj?: string, prep?: string, article?: string): string {
  let s = '';
  if (conj) s += `${conj}\u064e`;
  if (prep) s += prep === 'ل' && article ? 'لِ' : `${prep}${prep === 'ك' ? '\u064e' : '\u0650'}`;
  if (article) s += prep === 'ل' ? 'ل' : 'ال';
  return s;
}

function withSunShadda(word: string): string {
  return SUN_LETTERS.test(word) ? word.replace(/^(.)[\u064b-\u0652]*/u, (_m, c: string) => `${c}\u0651${/^.([\u064e-\u0650])/u.exec(word)?.[1] ?? ''}`) : word;
}

const PREP_VOWEL: Record<string, string> = { 'ب': 'i', 'ل': 'i', 'ك': 'a' };
const CONS: Record<string, [string, string]> = { 'و': ['w', 'w'], 'ف': ['f', 'f'], 'ب': ['b', 'b'], 'ل': ['l', 'l'], 'ك': ['k', 'k'] };

function espeakClitics(conj: string | undefined, prep: string | undefined, article: string | undefined, word: string, phraseInitial: boolean): string {
  let s = '';
  if (conj) s += `${CONS[conj]![0]}a`;
  if (prep) s += CONS[prep]![0] + PREP_VOWEL[prep];
  if (!article) return s + word;
  // inside a phrase the article's vowel is elided (hamzat al-wasl), as the labels do for Arabic words
  if (!s && phraseInitial) s = '?a';
  const body = word.replace(/^['',]+/u, '');
  const stress = word.slice(0, word.length - body.length);
  const first = /^(?:tS|dZ|gH|[a-zA-Z?])/u.exec(body)?.[0] ?? '';
  // the article's l becomes the sun consonant (assimilation), as in Arabic
  if (SUN_PHONES.has(first)) return `${s}${stress}${first}${body}`;
  return `${s}l${stress}${body}`;
}

function htsClitics(conj: string | undefined, prep: string | undefined, article: string | undefined, phones: string[], phraseInitial: boolean): string[] {
  const out: string[] = [];
  if (conj) out.push(CONS[conj]![1], 'a');
  if (prep) out.push(CONS[prep]![1], PREP_VOWEL[prep]!);
  if (!article) return [...out, ...phones];
  if (!out.length && phraseInitial) out.push('ah', 'a');
  const [first, ...rest] = phones;
  if (first && SUN_PHONES.has(first)) return [...out, gemHts(first), ...rest];
  return [...out, 'l', ...phones];
}
