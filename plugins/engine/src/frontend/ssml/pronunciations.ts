/**
 * The rules of a request's pronunciation dictionaries applied to its text, before normalization:
 * whole words only; diacritic-insensitive unless the rule's string carries diacritics; an Arabic
 * rule also matches behind the proclitics و ف ب ك ل ال and their combinations (وبالرياض، للرياض);
 * Latin case-insensitive; the longest rule wins, then the earlier one (the locators' order).
 * Aliases replace the words (and are what is billed); phoneme rules become x-sawt passages
 * `[[…]]`, the proclitics read into the passage (wa, bi, li, the article's l or sun letter).
 */
import { errors, type PronunciationRule } from '@sawt/core';
import { HARAKAT, KEEP_END, KEEP_START } from '../diacritize.js';
import { splitRaw } from '../raw.js';
import { tokenizeWord } from '../phoneme-passages.js';
import type { SpeechDocument, SpokenRun } from './document.js';
import { ipaToXSawt, joinSymbols } from './ipa.js';
import { xSawtPassage } from './parse.js';

const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
/** Arabic short vowels, tanween, shadda, sukun, dagger alif; tatweel is no letter either. */
const ARABIC_DIACRITICS = /[\u064B-\u0652\u0670]/gu;
const TATWEEL = /\u0640/gu;
const LATIN = /\p{Script=Latin}/gu;
const STRESS = new Set(["'", ',', "''", ',,', '%', '%%', '=', "'!"]);
/** Sun letters as x-sawt symbols: the article's l becomes them (ash-shams). */
const SUN = new Set(['t', 'T', 'd', 'D', 'r', 'z', 's', 'S', 's[', 'dH', 't[', 'd[', 'Z', 'l', 'n']);
const CLITIC_PHONEMES: Record<string, string[]> = { 'و': ['w', 'a'], 'ف': ['f', 'a'], 'ب': ['b', 'i'], 'ك': ['k', 'a'], 'ل': ['l', 'i'] };

const nfc = (s: string) => s.normalize('NFC').replace(TATWEEL, '');
/** A word compared without diacritics: Arabic harakat gone, Latin letters without accents, lower case. */
const foldKey = (s: string) => nfc(s).replace(ARABIC_DIACRITICS, '').replace(LATIN, (c) => c.normalize('NFD').replace(/\p{M}/gu, '')).toLowerCase();
/** A word compared as written (a rule with diacritics): only case folded. */
const exactKey = (s: string) => nfc(s).toLowerCase();
const hasDiacritics = (s: string) => foldKey(s) !== exactKey(s);

/** Proclitic chains that may stand before a rule's word, longest first, with how they read. */
interface Proclitic {
  letters: string;
  /** The rule's word starts with the article whose alif the chain absorbed (ل + الرياض = للرياض). */
  absorbsArticle: boolean;
  clitics: string[];
  article: boolean;
}
const PROCLITICS: Proclitic[] = (() => {
  const out: Proclitic[] = [];
  for (const a of ['', 'و', 'ف']) {
    for (const b of ['', 'ب', 'ك', 'ل']) {
      for (const c of ['', 'ال']) {
        const clitics = [a, b].filter(Boolean);
        if (clitics.length + (c ? 1 : 0) === 0) continue;
        // ل + ال is written لل: not "لال"
        if (b === 'ل' && c) out.push({ letters: `${a}لل`, absorbsArticle: false, clitics, article: true });
        else out.push({ letters: a + b + c, absorbsArticle: false, clitics, article: c !== '' });
      }
    }
    out.push({ letters: `${a}ل`, absorbsArticle: true, clitics: [a, 'ل'].filter(Boolean), article: false });
  }
  return out.sort((x, y) => y.letters.length - x.letters.length);
})();

interface CompiledRule {
  order: number;
  source: PronunciationRule;
  keys: string[];
  exact: string[] | null;
  gaps: string[];
  length: number;
  /** Phoneme rules: the passage's words as x-sawt symbols. */
  phonemes: string[][] | null;
  arabic: boolean;
}

interface Token {
  text: string;
  start: number;
  end: number;
}

/** The first `letters` base letters of `word` (with their marks) and the rest. */
function splitLetters(word: string, letters: number): [string, string] {
  let seen = 0;
  let i = 0;
  for (; i < word.length; i++) {
    if (/[\p{M}\u0640]/u.test(word[i]!)) continue;
    if (seen === letters) break;
    seen++;
  }
  return [word.slice(0, i), word.slice(i)];
}

const ruleName = (r: PronunciationRule) => `pronunciation rule '${r.string_to_replace.length > 40 ? `${r.string_to_replace.slice(0, 40)}…` : r.string_to_replace}'`;

export class PronunciationMatcher {
  private readonly byFirstKey = new Map<string, CompiledRule[]>();
  readonly size: number;

  /** `rules` in the locators' order (resolveLocators gives them so). 400 for a rule that cannot be used. */
  constructor(rules: readonly PronunciationRule[]) {
    rules.forEach((rule, order) => {
      const text = nfc(rule.string_to_replace).trim();
      const tokens = [...text.matchAll(WORD)];
      if (!tokens.length) throw errors.validation(`${ruleName(rule)} has no word to match`);
      const gaps = tokens.slice(1).map((t, i) => text.slice(tokens[i]!.index + tokens[i]![0].length, t.index).replace(/\s+/gu, ' '));
      const words = tokens.map((t) => t[0]);
      let phonemes: string[][] | null = null;
      if (rule.type === 'phoneme') {
        const passage = rule.alphabet === 'ipa' ? ipaToXSawt(rule.phoneme, ruleName(rule)) : xSawtPassage(rule.phoneme, ruleName(rule));
        phonemes = passage.split(' ').map((w) => tokenizeWord(w).symbols);
      }
      const compiled: CompiledRule = {
        order, source: rule, keys: words.map(foldKey), exact: hasDiacritics(text) ? words.map(exactKey) : null, gaps, length: [...text].length, phonemes,
        arabic: /^\p{Script=Arabic}/u.test(words[0]!),
      };
      const list = this.byFirstKey.get(compiled.keys[0]!) ?? [];
      list.push(compiled);
      this.byFirstKey.set(compiled.keys[0]!, list);
    });
    this.size = rules.length;
  }

  /** `text` with the rules applied (`[[…]]` passages already in it are left alone) and what of it is billed. */
  apply(text: string): { text: string; spoken: string } {
    if (this.size === 0) return { text, spoken: text };
    let out = '';
    let spoken = '';
    for (const part of splitRaw(text)) {
      if (part.raw) {
        out += part.text;
        spoken += part.text;
        continue;
      }
      const r = this.applyPlain(part.text);
      out += r.text;
      spoken += r.spoken;
    }
    return { text: out, spoken };
  }

  private applyPlain(text: string): { text: string; spoken: string } {
    const tokens: Token[] = [...text.matchAll(WORD)].map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }));
    let out = '';
    let spoken = '';
    let copied = 0;
    for (let i = 0; i < tokens.length;) {
      const found = this.matchAt(text, tokens, i);
      if (!found) {
        i++;
        continue;
      }
      const first = tokens[i]!;
      const last = tokens[i + found.rule.keys.length - 1]!;
      out += text.slice(copied, first.start);
      spoken += text.slice(copied, first.start);
      const [prefix] = splitLetters(first.text, found.prefix?.letters.length ?? 0);
      const written = prefix + text.slice(first.start + prefix.length, last.end);
      if (found.rule.source.type === 'alias') {
        let alias = nfc(found.rule.source.alias);
        // ل + an alias that starts with the article is written لل, as the text had it
        if (found.prefix?.absorbsArticle && alias.startsWith('ال')) alias = alias.slice(1);
        // An alias written with diacritics is read as written (the diacritizer adds nothing to it), as the lexicon's are.
        out += prefix + (HARAKAT.test(alias) ? `${KEEP_START}${alias}${KEEP_END}` : alias);
        spoken += prefix + alias;
      } else {
        out += `[[${this.passage(found.rule, found.prefix)}]]`;
        spoken += written;
      }
      copied = last.end;
      i += found.rule.keys.length;
    }
    out += text.slice(copied);
    spoken += text.slice(copied);
    return { text: out, spoken };
  }

  /** The best rule starting at token i: the longest, then the earliest; with the proclitics before it. */
  private matchAt(text: string, tokens: Token[], i: number): { rule: CompiledRule; prefix: Proclitic | null } | null {
    const word = tokens[i]!.text;
    const bare = foldKey(word);
    const options: Array<{ key: string; prefix: Proclitic | null }> = [{ key: bare, prefix: null }];
    for (const p of PROCLITICS) {
      if (!bare.startsWith(p.letters) || bare.length - p.letters.length < 2) continue;
      const rest = bare.slice(p.letters.length);
      options.push({ key: p.absorbsArticle ? `ا${rest}` : rest, prefix: p });
    }
    let best: { rule: CompiledRule; prefix: Proclitic | null } | null = null;
    for (const { key, prefix } of options) {
      for (const rule of this.byFirstKey.get(key) ?? []) {
        if (prefix && !rule.arabic) continue;
        if (!this.matches(rule, text, tokens, i, prefix)) continue;
        if (!best || rule.length > best.rule.length || (rule.length === best.rule.length && rule.order < best.rule.order)) best = { rule, prefix };
      }
    }
    return best;
  }

  private matches(rule: CompiledRule, text: string, tokens: Token[], i: number, prefix: Proclitic | null): boolean {
    if (i + rule.keys.length > tokens.length) return false;
    for (let j = 0; j < rule.keys.length; j++) {
      const token = tokens[i + j]!;
      if (j > 0) {
        const gap = text.slice(tokens[i + j - 1]!.end, token.start).replace(/\s+/gu, ' ');
        if (gap !== rule.gaps[j - 1]) return false;
        if (foldKey(token.text) !== rule.keys[j]) return false;
      }
      if (rule.exact) {
        let w = token.text;
        if (j === 0 && prefix) w = (prefix.absorbsArticle ? 'ا' : '') + splitLetters(w, prefix.letters.length)[1];
        if (exactKey(w) !== rule.exact[j]) return false;
      }
    }
    return true;
  }

  /** A phoneme rule's passage, the proclitics before it read as Arabic reads them. */
  private passage(rule: CompiledRule, prefix: Proclitic | null): string {
    const words = rule.phonemes!.map((w) => [...w]);
    if (prefix) {
      const lead = prefix.clitics.flatMap((c) => CLITIC_PHONEMES[c]!);
      let first = words[0]!;
      const startsWithArticle = rule.keys[0]!.startsWith('ال');
      if (startsWithArticle || prefix.absorbsArticle) {
        // hamzat al-wasl: the article's ?a is not said after a proclitic (wa-r-riyāḍ, bi-r-riyāḍ)
        const k = first.findIndex((s) => !STRESS.has(s));
        if (first[k] === '?' && first[k + 1] === 'a') first = [...first.slice(0, k), ...first.slice(k + 2)];
        else if (first[k] === '?') first = [...first.slice(0, k), ...first.slice(k + 1)];
      } else if (prefix.article) {
        const k = first.findIndex((s) => !STRESS.has(s));
        const sun = k >= 0 && SUN.has(first[k]!) ? first[k]! : 'l';
        if (prefix.clitics.length) lead.push(sun);
        else lead.push('?', 'a', sun);
      }
      first = [...lead, ...first];
      words[0] = first;
    }
    return words.map(joinSymbols).join(' ');
  }
}

/**
 * The document with the rules applied to its text runs (not to say-as, sub or phoneme elements,
 * which say themselves how they are read). Dictionary aliases are billed as spoken.
 */
export function applyPronunciations(doc: SpeechDocument, matcher: PronunciationMatcher): SpeechDocument {
  if (matcher.size === 0) return doc;
  return {
    ...doc,
    items: doc.items.map((item) => {
      if (item.kind !== 'speech' || item.origin !== 'text') return item;
      const r = matcher.apply(item.text);
      const run: SpokenRun = { ...item, text: r.text, spoken: r.spoken };
      return run;
    }),
  };
}
