/**
 * Full-context labels for the Arabic HTS voice (ara_norm_ziad, ../shared/models/hts/LABELS.md) from
 * diacritized text. With every option off they are Festival's exactly (the golden files); the options fix its defects.
 */

import { hasHtsSpan, htsSpanPhones } from '../frontend/latin/phone-span.js';

export interface LabelOptions {
  /** Hamzat al-wasl (the article's, and waslWord's) elided inside a phrase, said with i where one starts (Festival: `ah a`). */
  waslElision?: boolean;
  /** الله gets its long aa (Festival: short a). */
  allahLongVowel?: boolean;
  /** Arabic punctuation (، ؛ ؟) ends a phrase like its ASCII twin, and so does an ellipsis (Festival ignores both). */
  arabicPunctuation?: boolean;
}

/** What Sawt uses by default: every improvement on. */
export const DEFAULT_LABEL_OPTIONS: Required<LabelOptions> = { waslElision: true, allahLongVowel: true, arabicPunctuation: true };
/** Festival's behaviour (the golden labels). */
export const FESTIVAL_LABEL_OPTIONS: Required<LabelOptions> = { waslElision: false, allahLongVowel: false, arabicPunctuation: false };

const FATHA = '\u064E', DAMMA = '\u064F', KASRA = '\u0650', SUKUN = '\u0652', SHADDA = '\u0651';
const FATHATAN = '\u064B', DAMMATAN = '\u064C', KASRATAN = '\u064D';
const MARKS = new Set([FATHA, DAMMA, KASRA, SUKUN, SHADDA, FATHATAN, DAMMATAN, KASRATAN]);

const CONSONANTS: Record<string, string> = {
  'ء': 'ah', 'أ': 'ah', 'إ': 'ah', 'ؤ': 'ah', 'ئ': 'ah',
  'ب': 'b', 'ت': 't', 'ث': '^', 'ج': 'j', 'ح': 'H', 'خ': 'x', 'د': 'd', 'ذ': 'th', 'ر': 'r', 'ز': 'z',
  'س': 's', 'ش': 'ch', 'ص': 'S', 'ض': 'D', 'ط': 'T', 'ظ': 'Z', 'ع': 'E', 'غ': 'g', 'ف': 'f', 'ق': 'q',
  'ك': 'k', 'ل': 'l', 'م': 'm', 'ن': 'n', 'ه': 'h', 'و': 'w', 'ي': 'y', 'ة': 't',
};
const gem = (p: string) => (p === 'ah' ? 'ahh' : p + p);
const SUN = new Set(['ت', 'ث', 'د', 'ذ', 'ر', 'ز', 'س', 'ش', 'ص', 'ض', 'ط', 'ظ', 'ل', 'ن']);
const EMPHATIC = new Set(['S', 'D', 'T', 'Z', 'q', 'SS', 'DD', 'TT', 'ZZ', 'qq']);
const EMPH_VOWEL: Record<string, string> = { a: 'A', i: 'I', u: 'U', aa: 'AA', ii: 'II', uu: 'UU' };
export const VOWELS = new Set(['a', 'i', 'u', 'A', 'I', 'U', 'aa', 'AA', 'ii', 'II', 'uu', 'UU', 'ia', 'ua', 'uua']);
const NASALS = new Set(['m', 'n', 'mm', 'nn']);
/**
 * Phones a dialect rule may write that the voice never learned: /g/ (`G`, `GG`) is said as k / kk with a
 * voiced closure made at the parameter level. Measured with bench/hts-dialect-g.js against k, q, غ and ج (bench/README.md).
 */
export const RENDERED_PHONES: Record<string, { phone: string; voicedClosure: boolean }> = {
  G: { phone: 'k', voicedClosure: true },
  GG: { phone: 'kk', voicedClosure: true },
};
/** The voice's own phone name for a phone of the label front end. */
export const voicePhone = (p: string) => RENDERED_PHONES[p]?.phone ?? p;
const VOICED = new Set(['G', 'GG', 'b', 'bb', 'd', 'dd', 'th', 'thh', 'z', 'zz', 'j', 'jj', 'g', 'gg', 'E', 'EE', 'l', 'll', 'w', 'ww', 'y', 'yy', 'D', 'DD', 'Z', 'ZZ', 'v']);

/** Festival's lexicon addenda that matter here (own syllables). Keyed by the bare letters. */
const ADDENDA: Record<string, string[][]> = {
  'هذه': [['h', 'aa'], ['th', 'i'], ['h', 'i']],
  'هذا': [['h', 'aa'], ['th', 'aa']],
  'ذلك': [['th', 'aa'], ['l', 'i', 'k', 'a']],
  'هؤلاء': [['h', 'aa'], ['ah', 'u'], ['l', 'aa'], ['ah', 'i']],
  'لكن': [['l', 'aa'], ['k', 'i', 'nn', 'a']],
};

/** Clitics before an addendum word (وَهَذَا، لِذَلِكَ، بِهَذِهِ، وَلَكِنَّ) and their own syllable. */
const CLITIC_SYLLABLE: Record<string, string[]> = { 'و': ['w', 'a'], 'ف': ['f', 'a'], 'ب': ['b', 'i'], 'ل': ['l', 'i'], 'ك': ['k', 'a'] };

function addendumWithClitics(b: string): string[][] | undefined {
  if (ADDENDA[b]) return ADDENDA[b];
  const m = /^([وف])?([بلك])?(.+)$/u.exec(b);
  if (!m || !(m[1] || m[2])) return undefined;
  const [, conj, prep, rest] = m as unknown as [string, string | undefined, string | undefined, string];
  // لكن starts with ل: ولكن is و + لكن, not و + ل + كن
  const stem = ADDENDA[rest] ? rest : prep && ADDENDA[prep + rest] ? prep + rest : undefined;
  if (!stem) return undefined;
  const clitics = [conj, stem === rest ? prep : undefined].filter((c): c is string => !!c).map((c) => CLITIC_SYLLABLE[c]!);
  return [...clitics, ...ADDENDA[stem]!];
}

interface Letter { ch: string; shadda: boolean; vowel: string | null }

function parseLetters(word: string): Letter[] {
  const letters: Letter[] = [];
  for (const ch of word) {
    const last = letters[letters.length - 1];
    if (MARKS.has(ch)) {
      if (!last) continue;
      if (ch === SHADDA) last.shadda = true;
      else last.vowel = ch;
    } else if (/[\u0621-\u064A\u0671]/.test(ch)) {
      letters.push({ ch: ch === '\u0671' ? 'ا' : ch, shadda: false, vowel: null });
    }
  }
  return letters;
}

const bare = (word: string) => [...word].filter((c) => !MARKS.has(c)).join('');

/**
 * Words (bare letters) whose initial bare alif is hamzat al-wasl: only those known by form (a bare alif is as often
 * a qat' written without its hamza: احمد، انت): ابن، اسم، امرأة، اثنان (+ suffixes), forms VIII and X of 5+ letters.
 */
const WASL_NOUN = /^(?:ابن|ابنة|ابنت|ابنا|ابنان|ابني|ابنين|اسم|اسما|امرأة|امرأت|امرؤ|امرئ|امرأ|اثنان|اثنين|اثنا|اثني|اثنتان|اثنتين|اثنتا|اثنتي)(?:ه|ها|هم|هن|هما|ك|كم|كما|كن|ي|نا)?$/;
const NOT_WASL = /^(?:انت|انتم|انتما|انتن|انتي|استاذ|استاذة)$/;
function waslWord(b: string, doubledSecond: boolean): boolean {
  if (NOT_WASL.test(b)) return false;
  if (WASL_NOUN.test(b)) return true;
  const letters = [...b];
  if (letters.length < 5 || letters[0] !== 'ا') return false;
  return /^ا[^اوي]ت/.test(b) || /^ا[صضظ]ط/.test(b) || /^ازد/.test(b) || (doubledSecond && /^ا[تدطث]/.test(b));
}

/** Rewrites one word's phones (a dialect's rules on the HTS phone set, frontend/dialects.ts). */
export type PhoneRewrite = (phones: string[]) => string[];

interface WordCtx { phraseInitial: boolean; opts: Required<LabelOptions>; rewrite?: PhoneRewrite | undefined }

/** Letter-to-sound for one diacritized word: a list of phones (or syllables for addenda). */
export function wordPhones(word: string, ctx: WordCtx = { phraseInitial: true, opts: FESTIVAL_LABEL_OPTIONS }): { phones: string[]; syllables?: string[][] } {
  const b = bare(word);
  const addendum = addendumWithClitics(b);
  if (addendum) {
    const phones = ctx.rewrite ? ctx.rewrite(addendum.flat()) : addendum.flat();
    // The addendum keeps its own syllables unless a dialect rule changed its phones.
    return phones.join(' ') === addendum.flat().join(' ') ? { phones, syllables: addendum } : { phones };
  }
  const L = parseLetters(word);
  // The alif written after the plural و (تَأَخَّرُوا، دَعَوْا) is silent.
  const silentAlif = (k: number) => k === L.length - 1 && k >= 2 && L[k]!.ch === 'ا' && L[k]!.vowel === null && L[k - 1]!.ch === 'و' && !L[k - 1]!.shadda &&
    (L[k - 1]!.vowel === SUKUN || (L[k - 1]!.vowel === null && L[k - 2]!.vowel === DAMMA));
  let out: string[] = [];
  // Kinds parallel to out: 'c' consonant, 'v' vowel (short or long), to decide emphatic colouring afterwards.
  let i = 0;
  let articleEnd = 0; // the article's own vowel is not coloured by a following emphatic (Festival)
  // A lam with kasra before a bare alif is the article joining hamzat al-wasl (الِاقْتِصَاد: a l i q…).
  const beforeWasl = (k: number) => L[k + 1]!.vowel === KASRA && L[k + 2]?.ch === 'ا' && L[k + 2]!.vowel === null;
  const articleAt = (k: number) => L[k]?.ch === 'ا' && L[k + 1]?.ch === 'ل' && L[k + 1]!.vowel !== FATHA && (L[k + 1]!.vowel !== KASRA || beforeWasl(k)) && L[k + 1]!.vowel !== DAMMA && L.length > k + 2;
  const joinWasl = (k: number) => {
    if (!beforeWasl(k)) return;
    out.push('i');
    i++; // the wasl alif is silent
  };
  // الله and اللهم (allāhumma) have a long ā.
  const isAllah = /^[وفب]?اللهم?$/.test(b) || /^[وف]?للهم?$/.test(b);
  // Hamzat al-wasl of a known word (at k: 0, or 1 after a clitic); an alif with a vowel of its own is not one.
  const waslAt = (k: number) => ctx.opts.waslElision && L[k]?.ch === 'ا' && L[k]!.vowel === null && L.length > k + 2 &&
    waslWord(L.slice(k).map((x) => x.ch).join(''), !!L[k + 1]!.shadda);
  // The article at the start, or after a one-letter clitic (و ف ب ك ل + vowel).
  const at = articleAt(0) ? 0 : L.length > 3 && /[وفبكل]/.test(L[0]!.ch) && L[0]!.vowel && articleAt(1) ? 1 : -1;
  if (at >= 0) {
    // Inside a phrase with waslElision the article's alif is silent (the previous word runs on).
    if (at === 1) out.push(CONSONANTS[L[0]!.ch]!, vowelOf(L[0]!.vowel)!);
    else if (!(ctx.opts.waslElision && !ctx.phraseInitial)) out.push('ah', 'a');
    const next = L[at + 2]!;
    if (!(next.shadda && SUN.has(next.ch))) out.push('l'); // a sun letter takes the l
    i = at + 2;
    joinWasl(at);
    articleEnd = out.length;
  }
  for (; i < L.length; i++) {
    const l = L[i]!;
    const prev = L[i - 1];
    const isLast = i === L.length - 1;
    const nextL = L[i + 1];
    if (l.ch === 'آ') {
      out.push('ah', 'aa');
      continue;
    }
    if (l.ch === 'ا') {
      if ((prev && prev.vowel === FATHATAN) || silentAlif(i)) continue; // ًا: already "a n"
      if (l.vowel === FATHATAN) {
        out.push('a', 'n');
        continue;
      }
      if (waslAt(i) && (i === 0 || (i === 1 && /[وفبكل]/.test(L[0]!.ch) && L[0]!.vowel))) {
        // Silent after a clitic or inside a phrase; i where a phrase starts.
        if (i === 0 && ctx.phraseInitial) out.push('ah', 'i');
        continue;
      }
      if (out[out.length - 1] === 'a') out[out.length - 1] = 'aa';
      else if (i === 0) out.push('ah', l.vowel === KASRA ? 'i' : l.vowel === DAMMA ? 'u' : 'a');
      else out.push('aa');
      continue;
    }
    if (l.ch === 'ى') {
      if (out[out.length - 1] === 'a') out[out.length - 1] = 'aa';
      else if (out[out.length - 1] === 'i') out[out.length - 1] = 'ii';
      else out.push('aa');
      continue;
    }
    if ((l.ch === 'و' || l.ch === 'ي') && !l.shadda && (l.vowel === null || l.vowel === SUKUN) && prev) {
      const last = out[out.length - 1];
      const long = l.ch === 'و' ? (last === 'u' ? 'uu' : null) : last === 'i' ? 'ii' : null;
      if (long && (isLast || (nextL && nextL.ch !== 'ا') || !nextL || silentAlif(i + 1))) {
        out[out.length - 1] = long;
        continue;
      }
    }
    if (l.ch === 'ة' && isLast && (l.vowel === null || l.vowel === SUKUN)) continue;
    const c = CONSONANTS[l.ch];
    if (!c) continue;
    out.push(l.shadda ? gem(c) : c);
    const v = l.vowel;
    if (v === FATHATAN) out.push('a', 'n');
    else if (v === KASRATAN) out.push('ia', 'n');
    else if (v === DAMMATAN) out.push('ua', 'n');
    else if (v === FATHA || v === KASRA || v === DAMMA) {
      let phone = vowelOf(v)!;
      // kasra / damma in a word-final closed syllable: ia / ua
      if (phone !== 'a' && i === L.length - 2 && (L[i + 1]!.vowel === null || L[i + 1]!.vowel === SUKUN) && CONSONANTS[L[i + 1]!.ch] && L[i + 1]!.ch !== 'ة' && !(L[i + 1]!.ch === 'ي' && phone === 'i') && !(L[i + 1]!.ch === 'و' && phone === 'u')) {
        phone = phone === 'i' ? 'ia' : 'ua';
      }
      out.push(phone);
    }
  }
  if (isAllah && ctx.opts.allahLongVowel) {
    const k = out.lastIndexOf('ll');
    if (k >= 0 && out[k + 1] === 'a') out[k + 1] = 'aa';
  }
  // A dialect's rules act on the plain phones: colouring follows the consonants they leave.
  if (ctx.rewrite) {
    const before = out.length;
    out = ctx.rewrite(out);
    if (out.length !== before) articleEnd = Math.min(articleEnd, out.length);
  }
  // Emphatic colouring: a vowel right before ص ض ط ظ ق.
  for (let k = articleEnd; k < out.length - 1; k++) {
    const e = EMPH_VOWEL[out[k]!];
    if (e && EMPHATIC.has(out[k + 1]!)) out[k] = e;
  }
  return { phones: out };
}

function vowelOf(mark: string | null): string | null {
  return mark === FATHA ? 'a' : mark === KASRA ? 'i' : mark === DAMMA ? 'u' : null;
}

const hackVowel = (p: string) => /^[aiueoAIUEO]/.test(p);
const sonority = (p: string) => (VOWELS.has(p) ? 5 : p === 'r' || p === 'rr' ? 4 : NASALS.has(p) ? 3 : VOICED.has(p) ? 2 : 1);

/** Festival's lex_syllabify_phstress on one word. */
export function syllabify(phones: string[]): string[][] {
  const syls: string[][] = [];
  let cur: string[] = [];
  for (let k = 0; k < phones.length; k++) {
    const p = phones[k]!;
    cur.push(p);
    const rest = phones.slice(k + 1);
    if (rest.length === 0) {
      syls.push(cur);
      break;
    }
    const next = rest[0]!, next2 = rest[1];
    if (rest.some(hackVowel) && cur.some(hackVowel) && (VOWELS.has(next) || (next2 !== undefined && sonority(p) <= sonority(next) && sonority(next) <= sonority(next2)))) {
      syls.push(cur);
      cur = [];
    }
  }
  return syls;
}

/** textOffset, length: the word's token (less leading and trailing punctuation) in the text parseUtterance was given. */
interface Word { text: string; syllables: string[][]; textOffset: number; length: number }
interface Utterance { phrases: Array<{ words: Word[] }> }

const TOKEN_PUNCT = /["'`.,:;!?(){}[\]]/;
const BREAK_END = /["'?.,:;]$/;

/** Arabic punctuation as its ASCII twin, and an ellipsis as a comma (a pause inside the sentence); one code unit each, so offsets hold. */
const asAsciiPunctuation = (t: string) => t.replace(/،/g, ',').replace(/؛/g, ';').replace(/؟/g, '?').replace(/…/g, ',');

/**
 * Splits normalized text into utterances (Festival: at . ? ! before white space, and at blank lines / line
 * ends), each with where it starts in `text` (the punctuation mapping keeps offsets; the texts are mapped).
 */
export function splitUtterancesAt(text: string, opts: LabelOptions = {}): Array<{ text: string; offset: number }> {
  const o = { ...FESTIVAL_LABEL_OPTIONS, ...opts };
  let t = text;
  if (o.arabicPunctuation) t = asAsciiPunctuation(t);
  // The pieces String.prototype.split would give (the separators never match empty), with their starts.
  const pieces: Array<{ text: string; offset: number }> = [];
  let start = 0;
  for (const m of t.matchAll(/(?<=[.?!])\s+|\n\s*\n/g)) {
    pieces.push({ text: t.slice(start, m.index), offset: start });
    start = m.index + m[0].length;
  }
  pieces.push({ text: t.slice(start), offset: start });
  return pieces
    .map((p) => ({ text: p.text.trim(), offset: p.offset + (p.text.length - p.text.trimStart().length) }))
    .filter((p) => /[\u0621-\u064A]/.test(p.text) || hasHtsSpan(p.text));
}

/** Words and phrases of one utterance (as splitUtterancesAt gives it: punctuation mapped). */
function parseUtterance(t: string, opts: LabelOptions, rewrite?: PhoneRewrite): Utterance {
  const o = { ...FESTIVAL_LABEL_OPTIONS, ...opts };
  const phrases: Utterance['phrases'] = [];
  let words: Word[] = [];
  // The tokens of t.split(/\s+/).filter(Boolean), with where each starts.
  for (const m of t.matchAll(/\S+/g)) {
    const token = m[0];
    const core = [...token].filter((c) => !TOKEN_PUNCT.test(c)).join('');
    // A word the front end gave as phones (Latin-script words): no letter-to-sound.
    const given = htsSpanPhones(core);
    const { phones, syllables } = given ? { phones: given, syllables: undefined } : wordPhones(core, { phraseInitial: words.length === 0, opts: o, rewrite });
    if (phones.length) {
      // The token less its leading and trailing punctuation (TOKEN_PUNCT is ASCII: one code unit each).
      let first = 0, last = token.length;
      while (first < last && TOKEN_PUNCT.test(token[first]!)) first++;
      while (last > first && TOKEN_PUNCT.test(token[last - 1]!)) last--;
      words.push({ text: core, syllables: syllables ?? syllabify(phones), textOffset: m.index + first, length: last - first });
    }
    if (BREAK_END.test(token) && words.length) {
      phrases.push({ words });
      words = [];
    }
  }
  if (words.length) phrases.push({ words });
  return { phrases };
}

/** Full-context labels of one utterance (no times), one string per phone, pau at both ends and at each break. */
export function utteranceLabels(u: Utterance): string[] {
  interface Syl { phones: string[]; word: number; phrase: number; posInWord: number; posInPhrase: number; phraseSyls: number }
  interface WordInfo { syls: number; posInPhrase: number; phrase: number; phraseWords: number }
  const syls: Syl[] = [];
  const words: WordInfo[] = [];
  const phrases = u.phrases.map((p) => ({ syls: p.words.reduce((n, w) => n + w.syllables.length, 0), words: p.words.length }));
  u.phrases.forEach((p, pi) => {
    let sp = 0;
    p.words.forEach((w, wi) => {
      const wIndex = words.length;
      words.push({ syls: w.syllables.length, posInPhrase: wi, phrase: pi, phraseWords: p.words.length });
      w.syllables.forEach((s, si) => syls.push({ phones: s, word: wIndex, phrase: pi, posInWord: si, posInPhrase: sp++, phraseSyls: phrases[pi]!.syls }));
    });
  });
  // Phone sequence: null = pau; pau carries the index of the next syllable / word / phrase.
  type Seg = { pau: true; nextSyl: number; nextPhrase: number } | { pau: false; syl: number; pos: number };
  const segs: Seg[] = [{ pau: true, nextSyl: 0, nextPhrase: 0 }];
  syls.forEach((s, si) => {
    if (si > 0 && s.phrase !== syls[si - 1]!.phrase) segs.push({ pau: true, nextSyl: si, nextPhrase: s.phrase });
    s.phones.forEach((_, k) => segs.push({ pau: false, syl: si, pos: k }));
  });
  segs.push({ pau: true, nextSyl: syls.length, nextPhrase: phrases.length });
  const name = (k: number) => {
    const s = segs[k];
    if (!s) return 'x';
    return s.pau ? 'pau' : voicePhone(syls[s.syl]!.phones[s.pos]!);
  };
  const totalSyls = syls.length, totalWords = words.length, totalPhrases = phrases.length;
  const J = `/J:${totalSyls}+${totalWords}-${totalPhrases}`;
  const wordField = (w: number) => (w >= 0 && w < words.length ? `content_${words[w]!.syls}` : '0_0');
  const phraseG = (p: number) => (p >= 0 && p < phrases.length ? `${phrases[p]!.syls}_${phrases[p]!.words}` : '0_0');
  const phraseI = (p: number) => (p >= 0 && p < phrases.length ? `${phrases[p]!.syls}=${phrases[p]!.words}` : '0=0');
  const sylN = (s: number) => (s >= 0 && s < syls.length ? syls[s]!.phones.length : 0);
  const vowel = (s: Syl) => s.phones.find((p) => VOWELS.has(p)) ?? 'novowel';
  return segs.map((seg, k) => {
    const quin = `${name(k - 2)}^${name(k - 1)}-${name(k)}+${name(k + 1)}=${name(k + 2)}`;
    if (seg.pau) {
      const ps = seg.nextSyl - 1, ns = seg.nextSyl;
      const pw = ps >= 0 ? syls[ps]!.word : -1, nw = ns < syls.length ? syls[ns]!.word : words.length;
      return `${quin}@x_x/A:0_0_${sylN(ps)}/B:x-x-x@x-x&x-x#x-x$x-x!x-x;x-x|x/C:0+0+${sylN(ns)}/D:${wordField(pw)}/E:x+x@x+x&x+x#x+x/F:${wordField(nw)}/G:${phraseG(seg.nextPhrase - 1)}/H:x=x@1=${totalPhrases}|0/I:${phraseI(seg.nextPhrase)}${J}`;
    }
    const s = syls[seg.syl]!;
    const w = words[s.word]!;
    const ph = phrases[s.phrase]!;
    const n = s.phones.length;
    const ws = w.syls;
    const we = w.posInPhrase, wb = w.phraseWords - 1 - w.posInPhrase;
    return (
      `${quin}@${seg.pos + 1}_${n - seg.pos}` +
      `/A:0_0_${sylN(seg.syl - 1)}` +
      `/B:0-0-${n}@${s.posInWord + 1}-${ws - s.posInWord}&${s.posInPhrase + 1}-${s.phraseSyls - s.posInPhrase}#1-1$1-1!0-0;0-0|${vowel(s)}` +
      `/C:0+0+${sylN(seg.syl + 1)}` +
      `/D:${wordField(s.word - 1)}` +
      `/E:content+${ws}@${we + 1}+${wb + 1}&${we}+${wb}#${we > 0 ? 1 : 0}+${wb > 0 ? 1 : 0}` +
      `/F:${wordField(s.word + 1)}` +
      `/G:${phraseG(s.phrase - 1)}` +
      `/H:${ph.syls}=${ph.words}@${s.phrase + 1}=${totalPhrases - s.phrase}|NONE` +
      `/I:${phraseI(s.phrase + 1)}` +
      J
    );
  });
}

/** A spoken word of an HTS utterance: the label of its first phone and where it is in the text. */
export interface HtsWord {
  /** Index into the utterance's labels of the word's first phone. */
  label: number;
  /** Start and length (UTF-16) in the text given to textToUtterances, less its token's ASCII punctuation. */
  textOffset: number;
  length: number;
}

/** One utterance (sentence): its labels, as textToLabels gives them, and its spoken words in order. */
export interface HtsUtterance {
  labels: string[];
  words: HtsWord[];
  /** Labels whose phone is said with a voiced closure (RENDERED_PHONES), in order. */
  voicedClosures: number[];
}

/**
 * Text (diacritized, normalized) → its utterances' labels, each with the label that starts each spoken word
 * and where the word is in `text` (splitting and the punctuation mapping keep positions); `rewrite`: a dialect's phone rules.
 */
export function textToUtterances(text: string, opts: LabelOptions = DEFAULT_LABEL_OPTIONS, rewrite?: PhoneRewrite): HtsUtterance[] {
  return splitUtterancesAt(text, opts)
    .map((piece) => ({ piece, u: parseUtterance(piece.text, opts, rewrite) }))
    .filter(({ u }) => u.phrases.length > 0)
    .map(({ piece, u }) => {
      const words: HtsWord[] = [];
      const voicedClosures: number[] = [];
      let k = 1; // after the utterance-initial pau
      u.phrases.forEach((p, pi) => {
        if (pi > 0) k++; // the pau at the phrase break
        for (const w of p.words) {
          words.push({ label: k, textOffset: piece.offset + w.textOffset, length: w.length });
          for (const ph of w.syllables.flat()) {
            if (RENDERED_PHONES[ph]?.voicedClosure) voicedClosures.push(k);
            k++;
          }
        }
      });
      return { labels: utteranceLabels(u), words, voicedClosures };
    });
}

/** One label list per utterance (textToUtterances' labels). */
export function textToLabels(text: string, opts: LabelOptions = DEFAULT_LABEL_OPTIONS, rewrite?: PhoneRewrite): string[][] {
  return textToUtterances(text, opts, rewrite).map((u) => u.labels);
}

/** The phones the voice says (each label's centre phone), space-separated; `pau` between phrases and sentences, none at the ends. */
export function textToPhones(text: string, opts: LabelOptions = DEFAULT_LABEL_OPTIONS, rewrite?: PhoneRewrite): string {
  return splitUtterancesAt(text, opts)
    .flatMap((u) => parseUtterance(u.text, opts, rewrite).phrases)
    .map((p) => p.words.flatMap((w) => w.syllables.flat().map(voicePhone)).join(' '))
    .join(' pau ');
}
