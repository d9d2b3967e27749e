/**
 * Two numbers joined by a dash: a match score or a range, by context. After a word of a match
 * (فاز، تعادل، خسر، هزم، بنتيجة، المباراة…) in the same clause, two small numbers with no noun
 * after them are a score, read with مقابل (فاز الأهلي 3-1 → ثلاثة مقابل واحد; the number after
 * مقابل, an adverb in construct, is genitive: واحد مقابل اثنين); so are two numbers that do not go up
 * (صوت المجلس 5-3، 2-2), which no range is. Any other pair is a range:
 * 3-5 → 3 إلى 5, left for the unit and number readers, which give the first number the gender of
 * the noun counted after the second (من 3-5 ساعات → من ثلاث إلى خمس ساعات). Dates, month-years and
 * phone numbers have been read before this stage. Dimensions (2 م × 3 م، 1920x1080) are read with
 * "في" between the numbers.
 */
import { cardinal } from './cardinals.js';
import { caseAt } from './context.js';
import { analyzeNoun } from './morphology.js';

/** Words of a match that make n-m (or n:m) a score. */
const MATCH = new RegExp(
  `(?:^|[\\s،,(])[وف]?(?:${[
    'فاز', 'يفوز', 'تقدم', 'يتقدم', 'متقدما', 'انتصر', 'ينتصر', 'انتصرت', 'انتصار', 'الانتصار', 'بانتصار', 'أطاح', 'تفوق', 'يتفوق', 'فوزه', 'فوزها', 'تفوز', 'فوز', 'بفوز', 'الفوز', 'فازت', 'تغلب', 'يتغلب', 'تغلبت', 'هزم', 'يهزم', 'هزمت', 'خسر', 'يخسر', 'خسرت', 'خسارة', 'بخسارة',
    'تعادل', 'يتعادل', 'تعادلت', 'التعادل', 'بالتعادل', 'تعادلا', 'نتيجة', 'بنتيجة', 'النتيجة', 'بنتيجتها', 'المباراة', 'مباراة', 'المواجهة', 'اللقاء',
    'الشوط', 'سحق', 'اكتسح', 'أسقط', 'النهائي', 'نهائي', 'الديربي', 'الكلاسيكو', 'ذهابا', 'إيابا', 'ذهاباً', 'إياباً', 'المجموع', 'بمجموع', 'مجموع', 'الأهداف',
  ].join('|')})(?:اً|ا|ً)?(?=[\\s،,)]|$)`,
  'u',
);
/** A plural right after the pair makes it a range of what it counts (سجل 2-3 أهداف، من 3-5 أيام). */
function countsAfter(rest: string): boolean {
  const w = /^\s*([\u0621-\u064a]{2,})/u.exec(rest)?.[1];
  // a plural with a preposition glued to it (بركلات الترجيح) is a phrase of its own
  return !!w && !/^[وفبل]?(?:ال|لل)/u.test(w) && analyzeNoun(w).plural && !(/^[بلك]/u.test(w) && analyzeNoun(w.slice(1)).plural);
}

export function normalizeRanges(text: string): string {
  // dimensions: 2 م × 3 م، 1920x1080 → "في" between the numbers
  text = text.replace(/(?<=\d(?:\s?[\p{L}²³]{1,3})?)\s*[×xX]\s*(?=\d)/gu, ' في ');
  return text.replace(/(?<![\d.,:/\p{L}])(\d{1,4})\s?[-–]\s?(\d{1,4})(?![\d.,:/])/gu, (_all, a: string, b: string, off: number, s: string) => {
    const clause = s.slice(Math.max(0, off - 80), off).split(/[.!؟?\n؛]/u).pop()!;
    const rest = s.slice(off + _all.length);
    // a range goes up: 5-3 or 2-2 is a tally (صوت المجلس 5-3) wherever it stands
    const score = a.length <= 2 && b.length <= 2 && (MATCH.test(clause) || Number(b) <= Number(a)) && !/(?:^|\s)(?:من|بين)\s*$/u.test(clause)
      && !countsAfter(rest);
    if (score) return `${cardinal(a, { case: caseAt(s, off) })} مقابل ${cardinal(b, { case: 'gen' })}`;
    return `${a} إلى ${b}`;
  }).replace(/(?<![\d.,:/\p{L}])(\d{1,2})\s?:\s?(\d)(?![\d.,:/])/gu, (all, a: string, b: string, off: number, s: string) => {
    // a score written with a colon (فاز 3:1): only after a match word (a clock time has two digits of minutes)
    const clause = s.slice(Math.max(0, off - 80), off).split(/[.!؟?\n؛]/u).pop()!;
    return MATCH.test(clause) ? `${cardinal(a, { case: caseAt(s, off) })} مقابل ${cardinal(b, { case: 'gen' })}` : all;
  });
}
