/**
 * Arabic text normalization for speech: raw text in, text an engine can read
 * out. Usable on its own (no engine needed). Stages, in order:
 * cleanup → URLs/e-mails → digits (decimal comma, % first) → money → phones →
 * dates (month-year, Hijri) → times (durations, GMT±N) → fractions → scores and
 * ranges → units → abbreviations → numbers (ordinals, percentages, counted
 * nouns, cardinals) → punctuation → finish. Phoneme input in [[...]] is left untouched.
 *
 * Conventions (also the reference table's): MSA; undiacritized output except
 * the accusative tanween written as اً/اءً where it is pronounced (أحد عشر
 * ريالاً، صباحاً); مئة (not مائة), ثلاثمئة joined; بالمئة for %; dates as
 * "ordinal day من month عام year"; years with هـ → "للهجرة", م → "للميلاد";
 * case is genitive after prepositions and construct nouns (context.ts),
 * nominative otherwise. Written Arabic beyond plain numbers (fractions.ts,
 * ranges.ts, units.ts, dates.ts, urls.ts): fractions as نصف/ثلث/ثلاثة أرباع,
 * a decimal comma as فاصلة, بالألف for ‰, سالب/زائد for signs and زائد/ناقص for
 * a time zone's offset, مقابل between a score's sides, units as their nouns in
 * agreement, URLs with دبليو دبليو دبليو / نقطة / آت / سلاش.
 */
import { expandAbbreviations } from './abbreviations.js';
import { cleanup, finish } from './cleanup.js';
import { normalizeCurrency } from './currency.js';
import { normalizeDates, normalizeTimes } from './dates.js';
import { decimalComma, signsAfter, stripThousands, toWesternDigits } from './digits.js';
import { normalizeFractions } from './fractions.js';
import { normalizeNumbers } from './numbers.js';
import { normalizePhones } from './phone.js';
import { normalizePunctuation } from './punctuation.js';
import { normalizeRanges } from './ranges.js';
import { normalizeUnits } from './units.js';
import { normalizeUrls } from './urls.js';

export interface NormalizeOptions {
  /** Read numbers, dates, money… as words (default true). False: cleanups only. */
  expand?: boolean;
}

function normalizePlain(text: string, opts: NormalizeOptions): string {
  text = cleanup(text);
  if (opts.expand === false) return finish(text);
  text = normalizeUrls(text);
  text = signsAfter(decimalComma(stripThousands(toWesternDigits(text))));
  // Money first: a currency sign claims its digits, however many (the phone rule reads long runs digit by digit).
  text = normalizeCurrency(text);
  text = normalizePhones(text);
  text = normalizeDates(text);
  text = normalizeTimes(text);
  text = normalizeFractions(text);
  text = normalizeRanges(text);
  text = normalizeUnits(text);
  text = expandAbbreviations(text);
  text = normalizeNumbers(text);
  text = normalizePunctuation(text);
  return finish(text);
}

/**
 * Control characters (C0 but tab and line breaks, DEL, C1) are spaces: espeak-ng reads a NUL as the
 * end of its text, so the words after one were dropped and billed (a leading NUL: 6 ms of audio).
 */
// eslint-disable-next-line no-control-regex -- control characters are what it matches
const CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/gu;

export function normalizeArabic(text: string, opts: NormalizeOptions = {}): string {
  const parts = text.replace(CONTROLS, ' ').split(/(\[\[[\s\S]*?\]\])/u);
  return parts
    .map((p, i) => (i % 2 ? p : normalizePlain(p, opts)))
    .join(' ')
    .replace(/ {2,}/gu, ' ')
    .trim();
}

export { cardinal, countNoun, digitByDigit, ordinal, readNumber } from './cardinals.js';
export { toWesternDigits } from './digits.js';
export { NOUNS, type Case, type Gender, type Noun } from './nouns.js';
