/**
 * Dates and times. Numeric dates are day/month/year (Arabic order; ISO
 * year-month-day too); a date reads as an ordinal day, "من", the month name
 * and "عام" + the year in the genitive: 15/3/2024 → الخامس عشر من مارس عام
 * ألفين وأربعة وعشرين. A Hijri marker (هـ) picks the Hijri month names and adds
 * "للهجرة"; م adds "للميلاد"; ق.م "قبل الميلاد". Gregorian months use the
 * names of Egypt and the Gulf (يناير…); Levantine names in the text are kept.
 * Times read with feminine ordinals and the usual fractions: 10:30 →
 * العاشرة والنصف, 7:45 → الثامنة إلا ربعاً, 9:05 → التاسعة وخمس دقائق.
 */
import { cardinal, countNoun, ordinal } from './cardinals.js';
import { caseAt } from './context.js';
import { NOUNS, type Case } from './nouns.js';

export const GREGORIAN = ['يناير', 'فبراير', 'مارس', 'أبريل', 'مايو', 'يونيو', 'يوليو', 'أغسطس', 'سبتمبر', 'أكتوبر', 'نوفمبر', 'ديسمبر'];
export const HIJRI = ['محرم', 'صفر', 'ربيع الأول', 'ربيع الآخر', 'جمادى الأولى', 'جمادى الآخرة', 'رجب', 'شعبان', 'رمضان', 'شوال', 'ذو القعدة', 'ذو الحجة'];
const OTHER_MONTHS = [
  'ابريل', 'إبريل', 'يونيه', 'يوليه', 'اغسطس', 'اكتوبر',
  'كانون الثاني', 'شباط', 'آذار', 'نيسان', 'أيار', 'حزيران', 'تموز', 'آب', 'أيلول', 'تشرين الأول', 'تشرين الثاني', 'كانون الأول',
  'ربيع الثاني', 'جمادى الثانية', 'جمادى الأول', 'جمادى الآخر', 'ذي القعدة', 'ذي الحجة',
];
const MONTH_NAMES = [...GREGORIAN, ...HIJRI, ...OTHER_MONTHS].sort((a, b) => b.length - a.length).join('|');
/** The era after a year: the abbreviations هـ / م / ق.م, or the words written out (هجري، للهجرة، ميلادي…). */
const ERA_WORDS = 'هجري|هجرية|الهجري|الهجرية|للهجرة|ميلادي|ميلادية|الميلادي|الميلادية|للميلاد';
const ERA = `(?:\\s*(${ERA_WORDS}|هـ|ه|م|ق\\.\\s?م)(?![\\p{L}\\p{N}]))?`;

function eraWords(era: string | undefined): string {
  if (!era) return '';
  // a word written out is read as written
  if (era.length > 2 && !era.startsWith('ق')) return ` ${era}`;
  if (era.startsWith('ق')) return ' قبل الميلاد';
  return era === 'م' ? ' للميلاد' : ' للهجرة';
}

/**
 * A Hijri date: marked so (هـ، هجري، للهجرة), or unmarked with a year of 1300–1499, which in a
 * numeric date today is a Hijri year (1445 هـ is 2023–24), not a Gregorian one.
 */
function isHijri(era: string | undefined, year: number | undefined): boolean {
  if (era) return /^(?:هـ|ه)$|هجر/u.test(era);
  return year !== undefined && year >= 1300 && year < 1500;
}

function fullYear(y: string): number {
  const n = Number(y);
  return y.length === 2 ? (n < 50 ? 2000 + n : 1900 + n) : n;
}

function readDate(day: number, month: string, year: number | undefined, era: string | undefined, c: Case): string {
  const d = `${ordinal(day, { case: c })} من ${month.replace(/^ذو /u, 'ذي ')}`;
  return year === undefined ? d : `${d} عام ${cardinal(year, { case: 'gen' })}${eraWords(era)}`;
}

/** The case for a construct at `index`, looking through a preceding "الساعة"/"يوم". */
function contextCase(text: string, index: number): Case {
  if (/(?:^|\s)[وفبل]?(?:يوم|تاريخ)\s*$/u.test(text.slice(Math.max(0, index - 20), index))) return 'gen';
  const m = /(?:^|\s)(?:ال|[وفبل])?(?:ساعة|يوم|تاريخ)\s*$/u.exec(text.slice(Math.max(0, index - 20), index));
  if (m) return caseAt(text, index - (text.slice(Math.max(0, index - 20), index).length - (m.index ?? 0)));
  return caseAt(text, index);
}

/** Words after which a number with م is a length in metres. */
const DISTANCE_BEFORE = /(?:^|\s)[وف]?(?:ب|ل|ال|بال|لل)?(?:سباق|مسافة|طول|طوله|طولها|ارتفاع|ارتفاعه|ارتفاعها|عمق|عرض|علو|بعد|مساحة|قطر|محيط|سباحة|عدو|ركض|جري)(?:\s+[\p{L}]+){0,2}\s*$/u;

export function normalizeDates(text: string): string {
  // year first, as Saudi official documents write Hijri dates: 1445/09/15هـ (marked Hijri, or a year of 1300–1499)
  text = text.replace(new RegExp(`(?<![\\d\\p{L}.,/])(\\d{4})/(\\d{1,2})/(\\d{1,2})(?![\\d/])${ERA}`, 'gu'), (all, y, m, d, era, off: number, s: string) => {
    if (Number(m) < 1 || Number(m) > 12 || Number(d) < 1 || Number(d) > 31) return all;
    return readDate(Number(d), (isHijri(era, Number(y)) ? HIJRI : GREGORIAN)[Number(m) - 1]!, Number(y), era, contextCase(s, off));
  });
  // ISO: 2024-03-15
  text = text.replace(/(?<![\d\p{L}])(\d{4})-(\d{1,2})-(\d{1,2})(?![\d])/gu, (all, y, m, d, off: number, s: string) =>
    Number(m) >= 1 && Number(m) <= 12 && Number(d) >= 1 && Number(d) <= 31 ? readDate(Number(d), GREGORIAN[Number(m) - 1]!, Number(y), undefined, contextCase(s, off)) : all);
  // 15/3/2024, 15-03-2024, 15.3.1445 هـ, 1/9/1445هـ
  text = text.replace(new RegExp(`(?<![\\d\\p{L}.,/])(\\d{1,2})([/.-])(\\d{1,2})\\2(\\d{4}|\\d{2})(?![\\d/])${ERA}`, 'gu'), (all, d, _sep, m, y, era, off: number, s: string) => {
    if (Number(m) < 1 || Number(m) > 12 || Number(d) < 1 || Number(d) > 31) return all;
    return readDate(Number(d), (isHijri(era, fullYear(y)) ? HIJRI : GREGORIAN)[Number(m) - 1]!, fullYear(y), era, contextCase(s, off));
  });
  // day and month without a year after a date word (up to two words between): يوم 1/2، بتاريخ 15/3، آخر موعد للسداد 25/12
  text = text.replace(/((?:^|\s)[وفبل]?(?:ال)?(?:يوم|تاريخ|الموافق|موعد|مواعيد)(?:\s+[\p{L}]+){0,2}\s+)(\d{1,2})\/(\d{1,2})(?![\d/]|[.,]\d)/gu, (all, pre: string, d, m, off: number, s: string) =>
    Number(m) >= 1 && Number(m) <= 12 && Number(d) >= 1 && Number(d) <= 31 ? pre + readDate(Number(d), GREGORIAN[Number(m) - 1]!, undefined, undefined, contextCase(s, off + pre.length)) : all);
  // a day and month that no fraction can be (the day not below the month: 15/3، 5/3; 24/7 is "all the time")
  text = text.replace(/(?<![\d\p{L}.,/])(\d{1,2})\/(\d{1,2})(?![\d/]|[.,]\d)/gu, (all, d, m, off: number, s: string) =>
    Number(m) >= 1 && Number(m) <= 12 && Number(d) >= Number(m) && Number(d) <= 31 && all !== '24/7' ? readDate(Number(d), GREGORIAN[Number(m) - 1]!, undefined, undefined, contextCase(s, off)) : all);
  // month and year: 03/2021، 03-2021، 9/1445 هـ (a month of 1–12 and a year of four digits; no range)
  text = text.replace(new RegExp(`(?<![\\d\\p{L}.,/-])(\\d{1,2})[/-](\\d{4})(?![\\d/]|-\\d)${ERA}`, 'gu'), (all, m, y, era) => {
    const year = Number(y);
    if (Number(m) < 1 || Number(m) > 12 || year < 1000 || year > 2199) return all;
    return `${(isHijri(era, year) ? HIJRI : GREGORIAN)[Number(m) - 1]} عام ${cardinal(year, { case: 'gen' })}${eraWords(era)}`;
  });
  // ISO year and month: 2021-03 (a zero-padded month; 2020-21 is a range of years)
  text = text.replace(/(?<![\d\p{L}.,/-])((?:19|20)\d{2})-(0[1-9])(?![\d/-])/gu, (_all, y, m) => `${GREGORIAN[Number(m) - 1]} عام ${cardinal(Number(y), { case: 'gen' })}`);
  // a card's expiry, month and two-digit year: تنتهي 08/27، صالحة حتى 12/26
  text = text.replace(/((?:تنتهي|ينتهي|انتهاء|الانتهاء|صلاحية|الصلاحية|صالحة حتى|صالح حتى|Exp|EXP)[\s:：]*(?:في\s+)?)(\d{2})\/(\d{2})(?![\d/])/gu, (all, pre: string, m, y) =>
    Number(m) >= 1 && Number(m) <= 12 ? `${pre}${GREGORIAN[Number(m) - 1]} عام ${cardinal(fullYear(y), { case: 'gen' })}` : all);
  // ranges of days before a month: من 1 إلى 15 يناير، بين 10 و20 مارس، 3-7 يونيو → both days ordinal, "من" before a bare dash range
  text = text.replace(new RegExp(`(?<![\\d\\p{L}.,])(\\d{1,2})\\s*(إلى|الى|حتى|و|-|–)\\s*(?=(\\d{1,2})\\s+(?:من\\s+)?(?:شهر\\s+)?(?:${MONTH_NAMES})(?![\\p{L}]))`, 'gu'), (all, d, conn: string, d2, off: number, s: string) => {
    if (Number(d) < 1 || Number(d) > 31 || Number(d2) < 1 || Number(d2) > 31) return all;
    const dash = conn === '-' || conn === '–';
    const lead = dash && !/(?:^|\s)(?:من|بين)\s*$/u.test(s.slice(0, off)) ? 'من ' : '';
    const c = dash || lead ? 'gen' : contextCase(s, off);
    return `${lead}${ordinal(Number(d), { case: c })} ${dash ? 'إلى' : conn} `;
  });
  // 15 مارس 2024, 1 رمضان 1445 هـ, 3 شباط
  text = text.replace(new RegExp(`(?<![\\d\\p{L}.,])(\\d{1,2})\\s+(?:من\\s+)?(?:شهر\\s+)?(${MONTH_NAMES})(?:\\s*[،,]?\\s*(\\d{4}))?${ERA}(?![\\p{L}])`, 'gu'), (all, d, month, y, era, off: number, s: string) => {
    if (Number(d) < 1 || Number(d) > 31) return all;
    // the second day of a range joined by و takes the first one's case (بين العاشر والعشرين)
    const c = /(?:^|\s)و\s?$/u.test(s.slice(Math.max(0, off - 3), off)) ? 'gen' : contextCase(s, off);
    return readDate(Number(d), month, y ? Number(y) : undefined, y ? era : undefined, c);
  });
  // مارس 2024 / رمضان 1445هـ
  text = text.replace(new RegExp(`(?<![\\p{L}])(${MONTH_NAMES})\\s+(\\d{4})(?![\\d])${ERA}`, 'gu'), (_all, month, y, era) => `${month} عام ${cardinal(Number(y), { case: 'gen' })}${eraWords(era)}`);
  // years with an era: 1445هـ, 2024م, 500 ق.م
  text = text.replace(/(?<![\d\p{L}.,])(\d{1,4})\s*(هـ|ه|م|ق\.\s?م)(?![\p{L}\p{N}²³/])/gu, (all, y, era, off: number, s: string) => {
    // metres, not a year: after a distance, a length or a race (سباق 1500 م، بارتفاع 828 م)
    if (era === 'م' && (y.length < 3 || DISTANCE_BEFORE.test(s.slice(Math.max(0, off - 40), off)))) return all;
    return `${cardinal(Number(y), { case: caseAt(s, off) })}${eraWords(era)}`;
  });
  return text;
}

const HOUR_F = (h: number) => (h === 1 ? 'الواحدة' : ordinal(h, { gender: 'f' }));

function readTime(h: number, min: number, sec: number | undefined, marker: string | undefined, c: Case): string {
  let suffix = '';
  if (marker) suffix = /^(ص|صباحا|صباحاً|am|a\.m\.)$/iu.test(marker) ? ' صباحاً' : ' مساءً';
  else if (h >= 13) suffix = ' مساءً';
  else if (h === 0) suffix = ' ليلاً';
  const h12 = h % 12 || 12;
  const next = (h12 % 12) + 1;
  let words: string;
  if (min === 0 && !sec) words = HOUR_F(h12);
  else if (min === 15 && !sec) words = `${HOUR_F(h12)} والربع`;
  else if (min === 30 && !sec) words = `${HOUR_F(h12)} والنصف`;
  else if (min === 20 && !sec) words = `${HOUR_F(h12)} والثلث`;
  else if (min === 45 && !sec) words = `${HOUR_F(next)} إلا ربعاً`;
  else if (min === 40 && !sec) words = `${HOUR_F(next)} إلا ثلثاً`;
  else {
    words = HOUR_F(h12);
    if (min) words += ` و${countNoun(min, NOUNS.minute!, { case: c })}`;
    if (sec) words += ` و${countNoun(sec, NOUNS.second!, { case: c })}`;
  }
  return words + suffix;
}

const MARKER = '(?:\\s*(صباحاً|صباحا|مساءً|مساء|ص|م|[AaPp]\\.?[Mm]\\.?)(?![\\p{L}]))?';

/**
 * Words before h:mm:ss that make it a duration, not a time of day: a race, a time taken, a period
 * (سجل زمن 2:05:30، أنهى السباق في 2:05:30، استغرقت الرحلة 1:45، مدته 2:15).
 */
const DURATION_WORDS = /(?:^|\s)[وف]?(?:ب|ل|ال|بال|لل)?(?:سباق|زمن|زمنه|زمنها|زمني|مدة|مدته|مدتها|ماراثون|نصف ماراثون|قياسي|قدره|قدرها|استغرق|استغرقت|يستغرق|تستغرق|أنهى|أنهت|ينهي|تنهي|قطع|قطعت|توقيت قدره|الفيلم|مباراة|شوط|لفة|اللفة)(?=\s)/u;

function isDuration(text: string, index: number): boolean {
  const clause = text.slice(Math.max(0, index - 60), index).split(/[.!؟?\n؛،,]/u).pop()!;
  if (/(?:^|\s)[وفبل]?(?:ال)?(?:ساعة|الساعة|تمام|صباحا|صباحاً|مساء|مساءً|موعد|يبدأ|تبدأ|ينطلق|تنطلق|بتوقيت)\s*$/u.test(clause)) return false;
  // the last four words
  return DURATION_WORDS.test(` ${clause.trim().split(/\s+/u).slice(-4).join(' ')} `);
}

/** h:mm:ss (or h:mm) as a duration: ساعتان وخمس دقائق وثلاثون ثانية, each part counted, zeros left out. */
function readDuration(parts: number[], c: Case): string {
  const nouns = parts.length === 3 ? [NOUNS.hour!, NOUNS.minute!, NOUNS.second!] : parts[0]! >= 24 ? [NOUNS.minute!, NOUNS.second!] : [NOUNS.hour!, NOUNS.minute!];
  const shown = parts.map((n, k) => ({ n, noun: nouns[k]! })).filter((p) => p.n > 0);
  if (!shown.length) return `صفر ${nouns.at(-1)!.sing}`;
  // one (of several parts) is the noun alone: ساعة وخمس دقائق
  return shown.map((p) => (p.n === 1 && shown.length > 1 ? p.noun.sing : countNoun(p.n, p.noun, { case: c }))).join(' و');
}

/** A time zone's offset: GMT+2 → GMT زائد اثنين، UTC-3 → UTC ناقص ثلاثة، +05:30 → زائد خمسة ونصف. */
function normalizeOffsets(text: string): string {
  return text.replace(/(GMT|UTC|غرينتش|جرينتش|غرينيتش|جي إم تي)\s?([+−-])\s?(\d{1,2})(?::?(\d{2}))?(?![\d])/gu, (all, zone: string, sign: string, h: string, m: string | undefined) => {
    const min = Number(m ?? 0);
    if (Number(h) > 14 || min > 59) return all;
    const minutes = !min ? '' : min === 30 ? ' ونصف' : min === 45 ? ' وثلاثة أرباع' : ` و${countNoun(min, NOUNS.minute!, { case: 'gen' })}`;
    return `${zone} ${sign === '+' ? 'زائد' : 'ناقص'} ${cardinal(Number(h), { case: 'gen' })}${minutes}`;
  });
}

export function normalizeTimes(text: string): string {
  text = normalizeOffsets(text);
  // durations: h:mm:ss after a race, a time taken, a period
  text = text.replace(/(?<![\d\p{L}.:])(\d{1,3}):(\d{2})(?::(\d{2}))?(?![\d:])/gu, (all, h, m, sec, off: number, s: string) => {
    if (!isDuration(s, off) || Number(m) > 59 || (sec && Number(sec) > 59)) return all;
    const parts = [Number(h), Number(m), ...(sec ? [Number(sec)] : [])];
    return readDuration(parts, contextCase(s, off));
  });
  text = text.replace(new RegExp(`(?<![\\d\\p{L}.:])(\\d{1,2}):(\\d{2})(?::(\\d{2}))?(?![\\d:])${MARKER}`, 'gu'), (all, h, m, sec, marker, off: number, s: string) => {
    if (Number(h) > 24 || Number(m) > 59 || (sec && Number(sec) > 59)) return all;
    return readTime(Number(h) % 24, Number(m), sec ? Number(sec) : undefined, marker, contextCase(s, off));
  });
  // الساعة 5 (مساءً)
  text = text.replace(new RegExp(`(الساعة\\s+)(\\d{1,2})(?![\\d.:])${MARKER}`, 'gu'), (all, pre, h, marker) =>
    Number(h) > 24 ? all : pre + readTime(Number(h) % 24, 0, undefined, marker, 'nom'));
  return text;
}
