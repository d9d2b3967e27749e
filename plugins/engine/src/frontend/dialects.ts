import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Dialect pronunciation as data: each `dialects/<name>.json` holds phonological
 * rules on espeak-ng's phoneme mnemonics (the stream synthesized with [[ ]]
 * input) and a small lexicon of frequent dialect words. A new dialect is a new
 * file. Rule fields: `match` (a regular expression over the phoneme string),
 * `replace` (its replacement; `$1`… allowed), optional `left` / `right` (regular
 * expressions the text just before / after the match must end / start with).
 * Rules apply in order, each to the output of the one before.
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
  rules: DialectRuleSpec[];
  /** Word (undiacritized) → replacement text (Arabic, possibly diacritized, or [[phonemes]]). */
  lexicon?: Record<string, string>;
}

export class Dialect {
  readonly name: string;
  readonly lexicon: Record<string, string>;
  private readonly rules: Array<{ re: RegExp; replace: string }>;

  constructor(spec: DialectSpec) {
    this.name = spec.dialect;
    this.lexicon = spec.lexicon ?? {};
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

  /** Rewrites espeak phoneme mnemonics (one clause or more, words separated by spaces). */
  apply(phonemes: string): string {
    let out = phonemes;
    for (const r of this.rules) out = out.replace(r.re, r.replace);
    return out;
  }
}

/** The dialect files shipped with the engine package. */
export const BUILTIN_DIALECTS_DIR = fileURLToPath(new URL('../../dialects/', import.meta.url));

export function loadDialectFile(file: string): Dialect {
  const spec = JSON.parse(readFileSync(file, 'utf8')) as DialectSpec;
  if (typeof spec.dialect !== 'string' || !Array.isArray(spec.rules)) throw new Error(`${file}: expected { "dialect": string, "rules": [...] }`);
  for (const r of spec.rules) {
    if (typeof r.match !== 'string' || typeof r.replace !== 'string') throw new Error(`${file}: every rule needs "match" and "replace" strings`);
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
