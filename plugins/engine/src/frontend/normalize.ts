/**
 * The front end's normalize stage. `normalizeText` is the full Arabic
 * normalizer (see ./normalize/index.ts): numbers, dates, times, money, phones,
 * abbreviations, URLs and punctuation read out, plus the light cleanups every
 * engine needs (NFC, tatweel, invisible marks, shadda before the short vowel).
 */
import { normalizeArabic, type NormalizeOptions } from './normalize/index.js';

export function normalizeText(text: string, _ctx?: unknown): string {
  return normalizeArabic(text);
}

export { normalizeArabic, type NormalizeOptions };
