/**
 * The case a number takes from the word before it, by a simple rule:
 * genitive after a preposition (في، من، إلى، على، عن، حتى، منذ…), after a
 * noun that governs it in construct (عام، سنة، نسبة، مبلغ، تاريخ…), or when a
 * preposition is attached to the digits (ب٥، ل٣); nominative otherwise.
 */
import type { Case } from './nouns.js';

const GENITIVE_BEFORE = new Set([
  'في', 'من', 'إلى', 'الى', 'على', 'عن', 'حتى', 'عند', 'لدى', 'فوق', 'تحت', 'دون', 'حول', 'سوى', 'غير', 'منذ', 'مذ', 'مع', 'بعد', 'قبل', 'خلال', 'بين', 'لمدة', 'مدة', 'طوال',
  'حوالي', 'حوالى', 'بحوالي', 'نحو', 'بنحو', 'قرابة', 'بقرابة', 'زهاء', 'أكثر', 'أقل',
  'عام', 'العام', 'لعام', 'بعام', 'سنة', 'السنة', 'لسنة', 'بسنة', 'نسبة', 'بنسبة', 'تاريخ', 'بتاريخ', 'مبلغ', 'بمبلغ',
  'قيمة', 'بقيمة', 'سعر', 'بسعر', 'معدل', 'بمعدل', 'رقم', 'برقم', 'الرقم', 'عمر', 'بعمر', 'ارتفاع', 'بارتفاع', 'عمق', 'بعمق', 'مسافة', 'بمسافة',
]);

/** The case for a number whose digits start at `index` in `text` (`prefix` is a preposition glued to the digits). */
export function caseAt(text: string, index: number, prefix = ''): Case {
  if (prefix === 'ب' || prefix === 'ل' || prefix === 'وب' || prefix === 'ول' || prefix === 'فب' || prefix === 'لل') return 'gen';
  const before = text.slice(Math.max(0, index - 40), index);
  const m = /([\p{L}\p{M}]+)[\s\u00a0]*$/u.exec(before);
  if (!m) return 'nom';
  let word = m[1]!.replace(/[\u064b-\u0652]/gu, '');
  if (GENITIVE_BEFORE.has(word)) return 'gen';
  // و/ف + preposition (وفي، ومن)
  if (/^[وف]/u.test(word) && GENITIVE_BEFORE.has(word.slice(1))) return 'gen';
  word = word.replace(/^[وف]?(?:ب|ل|ك)(?=ال)/u, '');
  return 'nom';
}
