/**
 * Which word of a request's text each spoken word reads (numbers, dates and abbreviations are read as
 * several words: matched in order, a ten-digit phone number put every later word 5 s early). Words of
 * letters alone are anchors, found near where expected; the spoken words between two anchors are shared
 * among the text's words between them, each taking as many as it reads alone and the last the rest.
 */
import type { WordTiming } from '@sawt/core';
import { normalizeArabic } from './frontend/normalize.js';

/** How far from where expected an anchor is looked for: bounded, so a hostile text (2,500 «د.») costs linear time. */
const ANCHOR_SLACK = 6;

/** A word's letters, for comparing a text's word with its spoken form (diacritics, hamza seats, punctuation aside). */
function letters(word: string): string {
  return word
    .replace(/[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]/gu, '')
    .replace(/[أإآٱ]/gu, 'ا')
    .replace(/ى/gu, 'ي')
    .replace(/ة/gu, 'ه')
    .replace(/[^\p{L}]/gu, '')
    .toLowerCase();
}

/** A word of Arabic letters (diacritics allowed) with punctuation at most around it: read as itself. */
// eslint-disable-next-line no-misleading-character-class -- letters and their diacritics, each on its own
const PLAIN = /^[^\p{L}\p{N}]*[\u0621-\u063a\u0641-\u064a\u064b-\u065f\u0670\u0671\u0640]+[^\p{L}\p{N}[\]]*$/u;

/** spokenCount's answers (normalizing a word costs about 35 µs; texts repeat their numbers and symbols), emptied when full. */
const COUNTS = new Map<string, number>();
const COUNTS_KEPT = 4096;

/** How many words `word` is read as on its own (0 for punctuation alone). */
function spokenCount(word: string): number {
  if (!/[\p{L}\p{N}\p{S}%@#&]/u.test(word)) return 0;
  let n = COUNTS.get(word);
  if (n === undefined) {
    n = normalizeArabic(word).split(/\s+/u).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
    if (COUNTS.size >= COUNTS_KEPT) COUNTS.clear();
    COUNTS.set(word, n);
  }
  return n;
}

export class SourceWords {
  private readonly words: string[];
  /** The text word each spoken word reads, in the order the engine reports them. */
  private readonly owners: number[] = [];
  /** The next text word not matched yet. */
  private next = 0;

  constructor(text: string) {
    this.words = text.match(/\S+/gu) ?? [];
  }

  /** The front end's next segments (in the order their audio comes): their words matched to the text's next words. */
  addSegments(segments: readonly string[]): void {
    const spoken = segments.join(' ').split(/\s+/u).filter((w) => /[\p{L}\p{N}]/u.test(w)).map(letters);
    let j = 0;
    let pending: Array<{ word: number; count: number }> = [];
    let pendingCount = 0; // the spoken words the pending text words read on their own
    const share = (upTo: number) => {
      pending.forEach(({ word, count }, p) => {
        const n = p === pending.length - 1 ? upTo - j : Math.min(count, upTo - j);
        for (let k = 0; k < n; k++) this.owners.push(word);
        j += n;
      });
      pending = [];
      pendingCount = 0;
    };
    for (; this.next < this.words.length && j < spoken.length; this.next++) {
      const word = this.words[this.next]!;
      if (PLAIN.test(word)) {
        const key = letters(word);
        const expected = j + pendingCount;
        let at = -1;
        for (let k = Math.max(j, expected - ANCHOR_SLACK); k < Math.min(spoken.length, expected + ANCHOR_SLACK + 1); k++) {
          if (spoken[k] === key && (at < 0 || Math.abs(k - expected) < Math.abs(at - expected))) at = k;
        }
        if (at >= 0) {
          share(at);
          this.owners.push(this.next);
          j = at + 1;
          continue;
        }
        pending.push({ word: this.next, count: 1 });
        pendingCount += 1;
      } else {
        const count = spokenCount(word);
        if (count > 0) pending.push({ word: this.next, count });
        pendingCount += count;
      }
    }
    if (pending.length) share(spoken.length);
    // Spoken words beyond the text's (none expected): the last word's.
    const last = this.owners[this.owners.length - 1] ?? 0;
    while (j++ < spoken.length) this.owners.push(last);
  }

  /** `words` (a chunk's, the `spokenBefore`th spoken word first) with the text word each one reads. */
  label(words: WordTiming[], spokenBefore: number): WordTiming[] {
    if (this.owners.length === 0) return words;
    return words.map((w, i) => ({ ...w, sourceWord: this.owners[Math.min(spokenBefore + i, this.owners.length - 1)]! }));
  }
}
