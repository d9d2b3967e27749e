/**
 * The case a number takes from the words before it, by simple rules:
 * genitive after a preposition (في، من، إلى، على، عن، حتى، منذ…), after a
 * noun that governs it in construct (عام، سنة، نسبة، مبلغ، خصم، غضون…), or when a
 * preposition is attached to the digits (ب٥، ل٣); accusative as the object of
 * a transitive verb (يستغرق الإجراء 45 دقيقة، سجلت البلاد 200 إصابة: the verb,
 * then its subject, a definite noun or idafa, or no subject at all); nominative otherwise.
 */
import type { Case } from './nouns.js';

const GENITIVE_BEFORE = new Set([
  'في', 'من', 'إلى', 'الى', 'على', 'عن', 'حتى', 'عند', 'لدى', 'فوق', 'تحت', 'دون', 'حول', 'سوى', 'غير', 'منذ', 'مذ', 'مع', 'بعد', 'قبل', 'خلال', 'بين', 'لمدة', 'مدة', 'طوال',
  'حوالي', 'حوالى', 'بحوالي', 'نحو', 'بنحو', 'قرابة', 'بقرابة', 'زهاء', 'أكثر', 'أقل', 'غضون', 'مدار', 'ظرف', 'أول', 'آخر',
  'عام', 'العام', 'لعام', 'بعام', 'سنة', 'السنة', 'لسنة', 'بسنة', 'نسبة', 'بنسبة', 'تاريخ', 'بتاريخ', 'مبلغ', 'بمبلغ',
  'قيمة', 'بقيمة', 'سعر', 'بسعر', 'معدل', 'بمعدل', 'رقم', 'برقم', 'الرقم', 'عمر', 'بعمر', 'ارتفاع', 'بارتفاع', 'عمق', 'بعمق', 'مسافة', 'بمسافة',
  'خصم', 'بخصم', 'تخفيض', 'بتخفيض', 'تخفيضات', 'زيادة', 'بزيادة', 'نمو', 'بنمو', 'انخفاض', 'بانخفاض', 'تراجع', 'بتراجع', 'مساحة', 'بمساحة', 'طول', 'بطول',
  'عرض', 'بعرض', 'وزن', 'بوزن', 'حجم', 'بحجم', 'سرعة', 'بسرعة', 'تكلفة', 'بتكلفة', 'كلفة', 'بكلفة', 'إجمالي', 'بإجمالي', 'مجموع', 'بمجموع',
]);

/**
 * Transitive verbs whose counted argument is usually the object (past stem: present stem), in the
 * third person; و/ف may precede them. Verbs that count their agents (وصل، حضر، زار، شارك) keep
 * the number nominative: زار المعرض مليونا شخص.
 */
const TRANSITIVE = [
  'بلغ:بلغ', 'تجاوز:تجاوز', 'تخطى:تخطى', 'سجل:سجل', 'حقق:حقق', 'استقبل:ستقبل', 'خسر:خسر', 'ربح:ربح', 'كسب:كسب', 'قطع:قطع', 'دفع:دفع',
  'جمع:جمع', 'ضم:ضم', 'شمل:شمل', 'فقد:فقد', 'باع:بيع', 'اشترى:شتري', 'أنفق:نفق', 'وزع:وزع', 'قتل:قتل', 'أصاب:صيب', 'تلقى:تلقى',
  'استغرق:ستغرق', 'أضاف:ضيف', 'خصص:خصص', 'رصد:رصد', 'أنتج:نتج', 'صدر:صدر', 'استورد:ستورد', 'وفر:وفر', 'جذب:جذب', 'استهلك:ستهلك',
  'قرأ:قرأ', 'كتب:كتب', 'أكل:أكل', 'شرب:شرب', 'أطلق:طلق', 'نشر:نشر', 'استضاف:ستضيف', 'احتوى:حتوي', 'تضمن:تضمن', 'ضاعف:ضاعف',
  'تسلم:تسلم', 'استلم:ستلم', 'أنجز:نجز', 'عالج:عالج', 'أجرى:جري', 'نفذ:نفذ', 'استخدم:ستخدم', 'بنى:بني', 'افتتح:فتتح', 'حصد:حصد', 'أحرز:حرز',
];
const TRANSITIVE_FORMS = new Set<string>();
for (const entry of TRANSITIVE) {
  const [past, present] = entry.split(':') as [string, string];
  TRANSITIVE_FORMS.add(past);
  TRANSITIVE_FORMS.add(past.endsWith('ى') ? `${past.slice(0, -1)}ت` : `${past}ت`);
  TRANSITIVE_FORMS.add(`ي${present}`);
  TRANSITIVE_FORMS.add(`ت${present}`);
}
const isTransitive = (w: string) => TRANSITIVE_FORMS.has(w) || (/^[وف]/u.test(w) && TRANSITIVE_FORMS.has(w.slice(1)));
/** A word that can close a verb's subject: definite (ال…) or with a pronoun suffix (طوله، عددهم). */
const SUBJECT_END = /^(?:[وف]?ال\p{L}{2,}|\p{L}{2,}(?:ه|ها|هم|هن|هما))$/u;

/** Indefinite verbal nouns of the derived forms (تسجيل، إنتاج، استخدام، انتخاب، اختيار): only those head a construct. */
const VERBAL_NOUN = /^[وف]?(?:ت\p{L}\p{L}ي\p{L}|إ\p{L}\p{L}ا\p{L}|است\p{L}\p{L}ا\p{L}|ان\p{L}\p{L}ا\p{L}|ا\p{L}ت\p{L}ا\p{L})$/u;

/** The case for a number whose digits start at `index` in `text` (`prefix` is a preposition glued to the digits). */
export function caseAt(text: string, index: number, prefix = ''): Case {
  if (prefix === 'ب' || prefix === 'ل' || prefix === 'وب' || prefix === 'ول' || prefix === 'فب' || prefix === 'لل') return 'gen';
  const before = text.slice(Math.max(0, index - 60), index);
  const m = /([\p{L}\p{M}]+)[\s\u00a0]*$/u.exec(before);
  if (!m) return 'nom';
  const word = m[1]!.replace(/[\u064b-\u0652]/gu, '');
  if (GENITIVE_BEFORE.has(word)) return 'gen';
  // و/ف + preposition (وفي، ومن)
  if (/^[وف]/u.test(word) && GENITIVE_BEFORE.has(word.slice(1))) return 'gen';
  // a verbal noun governs the number in construct: تم تسجيل 1250 إصابة
  if (VERBAL_NOUN.test(word)) return 'gen';
  return objectOfVerb(before) ? 'acc' : 'nom';
}

/** The words before the number are a transitive verb, then nothing or a subject of 1–3 words. */
function objectOfVerb(before: string): boolean {
  const clause = before.split(/[،,؛;:.!?؟\n]/u).pop()!;
  const words = clause.replace(/[\u064b-\u0652]/gu, '').trim().split(/\s+/u).filter(Boolean);
  const last = words.length - 1;
  if (last < 0) return false;
  if (isTransitive(words[last]!)) return true;
  if (!SUBJECT_END.test(words[last]!)) return false;
  for (let k = last - 1; k >= Math.max(0, last - 3); k--) if (isTransitive(words[k]!)) return true;
  return false;
}
