/**
 * Fractions: the vulgar fraction characters (½ ¼ ¾ ⅓ ⅔ …), n/d with a denominator of 2–10 (1/2،
 * 3/4، 2/3) and mixed numbers (3 1/2، 3½), read with the Arabic fraction nouns (Wright I § 329;
 * Ryding ch. 15.5): نصف، ثلث، ربع … عشر; the dual for two parts (ثلثان، خمسان), the plural of the
 * pattern أفعال after 3–10 parts, counted like any masculine noun (ثلاثة أرباع، خمسة أثمان).
 * The fraction is a noun: before the noun it takes a part of, it is in construct (نصف كوب،
 * ثلثا السكان، ثلاثة أرباع الكمية; a unit is named: ربع كيلوغرام), and it takes the case of its place
 * (بثلثي، أضف نصفاً). A mixed number counts its noun by the whole part and adds the fraction after it
 * (3 1/2 ساعة → ثلاث ساعات ونصف; 3 1/2 alone → ثلاثة ونصف). A denominator above 12 (18/20, no month)
 * reads "من": ثمانية عشر من عشرين. A slash after a date word (يوم 1/2) is left to be a date.
 */
import { cardinal } from './cardinals.js';
import { numberCaseAt } from './context.js';
import { accusativeOf, analyzeNoun } from './morphology.js';
import { NOUNS, nounIdOf, type Case } from './nouns.js';
import { UNITS, unitSingular } from './units.js';

const SINGULAR = ['', '', 'نصف', 'ثلث', 'ربع', 'خمس', 'سدس', 'سبع', 'ثمن', 'تسع', 'عشر'];
const PLURAL = ['', '', 'أنصاف', 'أثلاث', 'أرباع', 'أخماس', 'أسداس', 'أسباع', 'أثمان', 'أتساع', 'أعشار'];

const VULGAR: Record<string, [number, number]> = {
  '½': [1, 2], '⅓': [1, 3], '⅔': [2, 3], '¼': [1, 4], '¾': [3, 4], '⅕': [1, 5], '⅖': [2, 5], '⅗': [3, 5], '⅘': [4, 5],
  '⅙': [1, 6], '⅚': [5, 6], '⅐': [1, 7], '⅛': [1, 8], '⅜': [3, 8], '⅝': [5, 8], '⅞': [7, 8], '⅑': [1, 9], '⅒': [1, 10],
};

/**
 * n/d in words (d 2–10, 0 < n < d), in case c; `construct` when a noun follows (the dual loses its
 * ن: ثلثا، ثلثي), else the indefinite accusative is written (نصفاً، ثلثين).
 */
export function fractionWords(n: number, d: number, c: Case = 'nom', construct = false): string {
  const sing = SINGULAR[d]!;
  if (n === 1) return c === 'acc' && !construct ? `${sing}اً` : sing;
  if (n === 2) return `${sing}${c === 'nom' ? 'ا' : 'ي'}${construct ? '' : 'ن'}`;
  return `${cardinal(n, { gender: 'm', case: c })} ${PLURAL[d]}`;
}

/** Words that follow a fraction without being what it is a part of. */
const NOT_A_NOUN = /^(?:[وف]?(?:من|في|على|إلى|الى|عن|مع|أو|او|ثم|حتى|بين|فقط|تقريبا|تقريباً|أيضا|أيضاً|هو|هي|قد|لا|لم|لن|ما|كل)|و)$/u;
const DATE_BEFORE = /(?:^|\s)[وفبل]?(?:ال)?(?:يوم|تاريخ|الموافق|موعد)\s*$/u;
const FRACTION = /(?<![\p{L}\p{N}.,/])([وف]?[بل]?)(?:(\d{1,3})(?:\s+|(?=[¼½¾⅐-⅞])))?(?:(\d{1,2})\s?[/⁄]\s?(\d{1,2})(?![\d/]|[.,]\d)|([¼½¾⅐-⅞]))(\s+[\p{L}\u064b-\u0652²³/]+)?/gu;

/** A single unit or noun, as the whole part 1 of a mixed number leaves it: كيلوغرام، كوباً (accusative). */
function oneOf(word: string, c: Case): string {
  const unit = UNITS[word];
  const known = unit?.noun ?? NOUNS[nounIdOf(word) ?? ''];
  if (known) return c === 'acc' ? `${known.acc}${unit?.adjective ? ` ${unit.adjective}${known.gender === 'f' ? 'ة' : 'اً'}` : ''}${unit?.tail ? ` ${unit.tail}` : ''}` : unit ? unitSingular(unit) : known.sing;
  const a = analyzeNoun(word);
  return c === 'acc' && a.gender === 'm' && !a.plural ? accusativeOf(a.bare) : word;
}

export function normalizeFractions(text: string): string {
  return text.replace(FRACTION, (all, prefix: string, whole: string | undefined, ns: string | undefined, ds: string | undefined, vulgar: string | undefined, after: string | undefined, off: number, s: string) => {
    const [n, d] = vulgar ? VULGAR[vulgar]! : [Number(ns), Number(ds)];
    if (!vulgar && DATE_BEFORE.test(s.slice(Math.max(0, off - 20), off))) return all;
    const word = after?.trim();
    const unit = word ? UNITS[word] : undefined;
    const noun = !!word && !NOT_A_NOUN.test(word) && /^[\p{L}]/u.test(word) && (!!unit || /^[\u0621-\u0652]+$/u.test(word));
    if (!(n > 0 && n < d)) return all;
    if (d > 10) {
      // a score out of a total (18/20): no month, so no date
      if (d <= 12 || whole || vulgar) return all;
      const c = numberCaseAt(s, off + prefix.length, prefix);
      return `${prefix}${cardinal(n, { case: c })} من ${cardinal(d, { case: 'gen' })}${after ?? ''}`;
    }
    const c = numberCaseAt(s, off + prefix.length, prefix);
    if (whole) {
      // one and a fraction is the noun and the fraction (ساعة ونصف، كوباً ونصفاً)
      if (noun && Number(whole) === 1) return `${prefix}${oneOf(word!, c)} و${fractionWords(n, d, c)}`;
      // the whole part counts the noun (left for the number and unit readers), the fraction follows it
      if (noun) return `${prefix}${whole} ${word} و${fractionWords(n, d, c)}`;
      return `${prefix}${cardinal(whole, { case: c })} و${fractionWords(n, d, c)}${after ?? ''}`;
    }
    if (noun) return `${prefix}${fractionWords(n, d, c, true)} ${unit ? unitSingular(unit) : word}`;
    return `${prefix}${fractionWords(n, d, c)}${after ?? ''}`;
  });
}
