/**
 * Text → Piper phoneme ids, as Piper makes them (rhasspy/piper-phonemize phonemize.cpp and
 * phoneme_ids.cpp, MIT; the same rule is in piper1-gpl):
 *  1. espeak-ng, clause by clause, IPA without ties (phonememode 0x02);
 *  2. "(lang)" switch flags dropped, Unicode NFD, split into code points (stress, length marks,
 *     combining marks and spaces are phonemes of their own), phoneme_map applied;
 *  3. the clause's terminator appended: "." "?" "!" or ", " ": " "; " (these three with a space);
 *     a sentence ends after . ? !
 *  4. ids = ^ _ (p _)* $ : BOS and a pad, every phoneme followed by a pad, then EOS.
 *     Phonemes missing from the id map are skipped (Piper warns).
 * The system espeak-ng (1.51) has no espeak_TextToPhonemesWithTerminator, so the terminator is read
 * from the last punctuation mark of the text espeak consumed for the clause, as the stand-in's
 * piper_ids.py does. Raw [[espeak mnemonics]] (lexicon entries, dialect rules) are read through
 * espeak's phoneme trace, one clause at a time.
 */
import { hasRawSpan, protectRaw } from '../frontend/raw.js';
import { ipaClauses, phonemeInputIpa } from '@sawt/native';

const TERMINATORS: Record<string, [string, boolean]> = {
  '.': ['.', true],
  '?': ['?', true],
  '؟': ['?', true],
  '!': ['!', true],
  ',': [', ', false],
  '،': [', ', false],
  ':': [': ', false],
  ';': ['; ', false],
  '؛': ['; ', false],
};

/** A clause with its punctuation (the front end's clause marks). */
const CLAUSE = /[^،,؛;:.!?؟…\n]+[،,؛;:.!?؟…\n]*/gu;

export function clausePhonemes(ipa: string, phonemeMap?: Map<string, string[]>): string[] {
  const chars = [...ipa.replace(/\([^)]*\)/gu, '').normalize('NFD')];
  return phonemeMap?.size ? chars.flatMap((c) => phonemeMap.get(c) ?? [c]) : chars;
}

/** Phonemes per sentence of `text` for the espeak-ng voice `voice`. */
export async function piperSentences(text: string, voice: string, phonemeMap?: Map<string, string[]>): Promise<string[][]> {
  const clauses = hasRawSpan(text) ? await clausesWithRawSpans(text, voice) : await ipaClauses(text, voice);
  const sentences: string[][] = [];
  let current: string[] = [];
  clauses.forEach(([ipa, consumed], i) => {
    current.push(...clausePhonemes(ipa, phonemeMap));
    const mark = [...consumed].reverse().find((c) => c in TERMINATORS);
    const [punct, ends] = mark ? TERMINATORS[mark]! : ['', false];
    current.push(...punct);
    if (ends || i === clauses.length - 1) {
      if (current.length) sentences.push(current);
      current = [];
    }
  });
  return sentences;
}

async function clausesWithRawSpans(text: string, voice: string): Promise<Array<[string, string]>> {
  const { text: guarded, restore } = protectRaw(text);
  const out: Array<[string, string]> = [];
  for (const m of guarded.matchAll(CLAUSE)) {
    const piece = restore(m[0]);
    if (hasRawSpan(piece)) out.push([await phonemeInputIpa(piece, voice), piece.trim()]);
    else out.push(...(await ipaClauses(piece, voice)));
  }
  return out;
}

/** `missing`: the phonemes the id map lacks (skipped, as Piper does). */
export function phonemeIds(phonemes: readonly string[], idMap: Map<string, number[]>): { ids: number[]; missing: string[] } {
  const pad = idMap.get('_')!;
  const ids = [...idMap.get('^')!, ...pad];
  const missing: string[] = [];
  for (const p of phonemes) {
    const mapped = idMap.get(p);
    if (!mapped) {
      missing.push(p);
      continue;
    }
    ids.push(...mapped, ...pad);
  }
  ids.push(...idMap.get('$')!);
  return { ids, missing };
}
