import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { MarkedWord } from './diacritic-corrections.js';

/**
 * Dialect pronunciation as data: each `dialects/<name>.json` holds phonological
 * rules on espeak-ng's phoneme mnemonics (the stream synthesized with [[ ]]
 * input) and a small lexicon of frequent dialect words. A new dialect is a new
 * file. Rule fields: `match` (a regular expression over the phoneme string),
 * `replace` (its replacement; `$1`… allowed), optional `left` / `right` (regular
 * expressions the text just before / after the match must end / start with).
 * Rules apply in order, each to the output of the one before. `colloquial: true`: the dialect is
 * spoken, not Modern Standard: its voices read every word in pausal form (pausalForm below).
 */
export interface DialectRuleSpec {
  match: string;
  replace: string;
  left?: string;
  right?: string;
  note?: string;
}

export interface DialectSpec {
  dialect: string;
  description?: string;
  /** Words are read in pausal form: no case endings, no tanween (but the adverbial -an). */
  colloquial?: boolean;
  rules: DialectRuleSpec[];
  /** Word (undiacritized) → replacement text (Arabic, possibly diacritized, or [[phonemes]]). */
  lexicon?: Record<string, string>;
  /** The same dialect on the HTS voice (its own phone set) and its prosody. */
  hts?: HtsDialectSpec;
}

/**
 * The `hts` section: rules on the HTS voice's phones (hts/labels.ts), applied to each word's
 * phones before emphatic vowel colouring and syllabification. A rule's `match`, `left` and `right`
 * are regular expressions over whole phones separated by single spaces (`left` must end right
 * before the match, `right` start right after it); `replace` gives phones, space-separated (empty:
 * the matched phones go). Prosody multiplies the voice's own: `f0Spread` scales log-F0 around its
 * mean (the F0 range), `speed` the speaking rate (>1 faster), `halfTone` is added.
 */
export interface HtsDialectSpec {
  rules: DialectRuleSpec[];
  prosody?: HtsProsody;
}

export interface HtsProsody {
  f0Spread?: number;
  speed?: number;
  halfTone?: number;
}

export class Dialect {
  readonly name: string;
  /** A spoken dialect: the diacritizer reads its words in pausal form. */
  readonly colloquial: boolean;
  readonly lexicon: Record<string, string>;
  private readonly rules: Array<{ re: RegExp; replace: string }>;
  private readonly htsRules: Array<{ re: RegExp; replace: string }>;
  /** Prosody of the dialect on the HTS voice (multiplies the voice's; empty: as the voice). */
  readonly htsProsody: Required<HtsProsody>;

  constructor(spec: DialectSpec) {
    this.name = spec.dialect;
    this.colloquial = spec.colloquial === true;
    this.lexicon = spec.lexicon ?? {};
    this.htsRules = (spec.hts?.rules ?? []).map((r, i) => {
      try {
        // Whole phones: the match (and its context) starts and ends at phone boundaries.
        const source = `(?<=(?:^| )${r.left ? `(?:${r.left}) ` : ''})(?:${r.match})(?=${r.right ? ` (?:${r.right})` : ''}(?: |$))`;
        return { re: new RegExp(source, 'gu'), replace: r.replace };
      } catch (e) {
        throw new Error(`dialect '${spec.dialect}' hts rule ${i + 1}: ${(e as Error).message}`);
      }
    });
    this.htsProsody = { f0Spread: 1, speed: 1, halfTone: 0, ...spec.hts?.prosody };
    this.rules = (spec.rules ?? []).map((r, i) => {
      try {
        const source = `${r.left ? `(?<=${r.left})` : ''}(?:${r.match})${r.right ? `(?=${r.right})` : ''}`;
        return { re: new RegExp(source, 'gu'), replace: r.replace };
      } catch (e) {
        throw new Error(`dialect '${spec.dialect}' rule ${i + 1}: ${(e as Error).message}`);
      }
    });
  }

  get hasRules(): boolean {
    return this.rules.length > 0;
  }

  get hasHtsRules(): boolean {
    return this.htsRules.length > 0;
  }

  /** Rewrites one word's HTS phones (as hts/labels.ts spells them). */
  applyHts(phones: string[]): string[] {
    if (this.htsRules.length === 0) return phones;
    let out = phones.join(' ');
    for (const r of this.htsRules) out = out.replace(r.re, r.replace);
    return out.split(' ').filter(Boolean);
  }

  /** Rewrites espeak phoneme mnemonics (one clause or more, words separated by spaces). */
  apply(phonemes: string): string {
    let out = phonemes;
    for (const r of this.rules) out = out.replace(r.re, r.replace);
    return out;
  }
}

const SHADDA = '\u0651';
const SUKUN = '\u0652';
const FATHATAN = '\u064b';
const FINAL_VOWEL = /[\u064b-\u0650]/u;

/**
 * A word as the spoken dialects say it: the final short vowel (the Modern Standard case or mood
 * ending) and tanween are not pronounced, so the last letter gets a sukun (a shadda stays: مُهِمّ).
 * Kept: a final long vowel (فِي، عَلَى), and the adverbial -an of tanween on an alif, which the
 * dialects do say (شُكْرًا، طَبْعًا، أَهْلًا).
 */
export function pausalForm(word: MarkedWord): void {
  const last = word.bare.length - 1;
  if (last < 1) return;
  const ch = word.bare[last]!;
  const prev = word.marks[last - 1] ?? '';
  const marks = word.marks[last]!;
  // A bare final و/ي after its vowel is a long vowel; with marks of its own it is a consonant (قَوِيٌّ).
  if ('اى'.includes(ch) || prev.includes(FATHATAN) || !FINAL_VOWEL.test(marks)) return;
  word.marks[last] = (marks.includes(SHADDA) ? SHADDA : '') + SUKUN;
}

/** The dialect files shipped with the engine package. */
export const BUILTIN_DIALECTS_DIR = fileURLToPath(new URL('../../dialects/', import.meta.url));

export function loadDialectFile(file: string): Dialect {
  const spec = JSON.parse(readFileSync(file, 'utf8')) as DialectSpec;
  if (spec.colloquial !== undefined && typeof spec.colloquial !== 'boolean') throw new Error(`${file}: "colloquial" must be true or false`);
  if (typeof spec.dialect !== 'string' || !Array.isArray(spec.rules)) throw new Error(`${file}: expected { "dialect": string, "rules": [...] }`);
  for (const r of spec.rules) {
    if (typeof r.match !== 'string' || typeof r.replace !== 'string') throw new Error(`${file}: every rule needs "match" and "replace" strings`);
  }
  if (spec.hts !== undefined) {
    if (!Array.isArray(spec.hts.rules)) throw new Error(`${file}: "hts" needs { "rules": [...] }`);
    for (const r of spec.hts.rules) {
      if (typeof r.match !== 'string' || typeof r.replace !== 'string') throw new Error(`${file}: every hts rule needs "match" and "replace" strings`);
    }
    for (const [k, v] of Object.entries(spec.hts.prosody ?? {})) {
      if (!['f0Spread', 'speed', 'halfTone'].includes(k) || typeof v !== 'number' || !Number.isFinite(v)) throw new Error(`${file}: hts.prosody takes numbers f0Spread, speed, halfTone (got ${k})`);
    }
  }
  return new Dialect(spec);
}

/** Loads every `*.json` in the given folders; later folders override earlier ones by dialect name. */
export function loadDialects(dirs: string[]): Map<string, Dialect> {
  const out = new Map<string, Dialect>();
  for (const dir of dirs) {
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
      const d = loadDialectFile(path.join(dir, f));
      out.set(d.name, d);
    }
  }
  return out;
}
