import { phonemize } from '@sawt/native';
import type { Dialect } from './dialects.js';
import { splitRaw } from './raw.js';

/** Clause pieces and the punctuation after them (kept as text, so espeak still pauses there). */
const CLAUSE = /([^،,؛;:.!?؟…\n]+)([،,؛;:.!?؟…\n]*)/gu;

export interface DialectPhonemeOptions {
  /** Emit phonemes for every clause, even unchanged ones (for display). */
  always?: boolean;
  /** A request's first segment: its espeak calls go ahead of waiting ones that are not. */
  urgent?: boolean;
}

/**
 * `text` with the dialect's rules applied clause by clause: changed clauses become [[phonemes]], the others
 * stay text (espeak keeps its sentence prosody there).
 */
export async function dialectPhonemes(text: string, dialect: Dialect | undefined, opts: DialectPhonemeOptions = {}): Promise<string> {
  const pieces: Array<Promise<string>> = [];
  for (const part of splitRaw(text)) {
    if (part.raw) {
      pieces.push(Promise.resolve(part.text));
      continue;
    }
    let last = 0;
    for (const m of part.text.matchAll(CLAUSE)) {
      if (m.index! > last) pieces.push(Promise.resolve(part.text.slice(last, m.index)));
      last = m.index! + m[0].length;
      const [, clause, punct] = m as unknown as [string, string, string];
      pieces.push(rewriteClause(clause, punct, dialect, opts));
    }
    if (last < part.text.length) pieces.push(Promise.resolve(part.text.slice(last)));
  }
  return (await Promise.all(pieces)).join('');
}

async function rewriteClause(clause: string, punct: string, dialect: Dialect | undefined, opts: DialectPhonemeOptions): Promise<string> {
  if (!/\p{L}/u.test(clause)) return clause + punct;
  const lead = /^\s*/u.exec(clause)![0];
  const trail = /\s*$/u.exec(clause)![0];
  const phonemes = (await phonemize(clause.trim(), 'ar', 'espeak', { urgent: opts.urgent === true })).trim();
  // A language switch (e.g. "(en)") cannot be written inside [[ ]]: keep the text.
  if (phonemes === '' || phonemes.includes('(')) return clause + punct;
  const rewritten = dialect ? dialect.apply(phonemes) : phonemes;
  if (!opts.always && rewritten === phonemes) return clause + punct;
  return `${lead}[[${rewritten}]]${trail}${punct}`;
}
