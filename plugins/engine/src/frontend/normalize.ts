/** The front end's normalize stage: the Arabic normalizer (./normalize/index.ts). */
import { normalizeArabic, type NormalizeOptions } from './normalize/index.js';

/** A kept passage (KEEP_START … KEEP_END, diacritize.ts): a dictionary alias written with its diacritics. */
const KEPT = /(\ue002[^\ue003]*\ue003)/u;

/** The text normalized around its kept passages (dictionary aliases), which pass as written. */
export function normalizeText(text: string, _ctx?: unknown): string {
  if (!text.includes('\ue002')) return normalizeArabic(text);
  return text.split(KEPT).map((part, i) => {
    if (i % 2 === 1 || !/[\p{L}\p{N}]/u.test(part)) return part;
    // What follows a kept passage may start with its sentence's end (the normalizer drops leading punctuation).
    const lead = /^[^\p{L}\p{N}]*/u.exec(part)![0];
    const trail = /\s*$/u.exec(part)![0];
    return lead + normalizeArabic(part.slice(lead.length).trim()) + trail;
  }).join('');
}

export { normalizeArabic, type NormalizeOptions };
