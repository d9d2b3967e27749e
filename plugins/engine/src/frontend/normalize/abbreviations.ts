/**
 * Common abbreviations spelled out: titles before names (د. → الدكتور،
 * م. → المهندس، أ. → الأستاذ، أ.د. → الأستاذ الدكتور), ص.ب (صندوق بريد),
 * إلخ (إلى آخره), ق.م (قبل الميلاد), ج.م.ع, and the honorifics ﷺ، (ص)، (ع)، (رض).
 */
const L = '(?<![\\p{L}\\p{N}])';
const RULES: Array<[RegExp, string]> = [
  [/\uFDFA/gu, ' صلى الله عليه وسلم '],
  [/\uFDFB/gu, ' جل جلاله '],
  [/\((?:ص|صلعم)\)/gu, 'صلى الله عليه وسلم'],
  [/\(ع\)/gu, 'عليه السلام'],
  [/\(رض\)/gu, 'رضي الله عنه'],
  [/\(رح\)/gu, 'رحمه الله'],
  [new RegExp(`${L}ج\\.م\\.ع\\.?`, 'gu'), 'جمهورية مصر العربية'],
  [new RegExp(`${L}ص\\.\\s?ب\\.?`, 'gu'), 'صندوق بريد'],
  [new RegExp(`${L}ق\\.\\s?م\\.?`, 'gu'), 'قبل الميلاد'],
  [new RegExp(`${L}(?:إلخ|الخ)(?![\\p{L}])`, 'gu'), 'إلى آخره'],
  [new RegExp(`${L}ش\\.\\s?(?=\\p{L})`, 'gu'), 'شارع '],
  [new RegExp(`${L}ص\\.\\s?(?=\\d)`, 'gu'), 'صفحة '],
  [new RegExp(`${L}ت\\s?:\\s?(?=[\\d+])`, 'gu'), 'هاتف '],
];

/** Titles before a name, and the feminine form a woman's name takes (الدكتورة سارة). */
const TITLES: Array<[RegExp, string, string]> = [
  [new RegExp(`${L}أ\\.\\s?د\\.?\\s*(?=\\p{L})`, 'gu'), 'الأستاذ الدكتور', 'الأستاذة الدكتورة'],
  [new RegExp(`${L}د\\.\\s?(?=\\p{L})`, 'gu'), 'الدكتور', 'الدكتورة'],
  [new RegExp(`${L}م\\.\\s?(?=\\p{L})`, 'gu'), 'المهندس', 'المهندسة'],
  [new RegExp(`${L}أ\\.\\s?(?=\\p{L})`, 'gu'), 'الأستاذ', 'الأستاذة'],
];

/**
 * A first name is a woman's when it ends in ة or ى or اء (سارة، ليلى، أسماء) unless it is a man's
 * name of that shape (حمزة، مصطفى، علاء), or when it is a common woman's name of another shape.
 */
const MEN_LIKE_WOMEN = new Set(['حمزة', 'طلحة', 'أسامة', 'اسامة', 'عبيدة', 'معاوية', 'عكرمة', 'قتادة', 'عروة', 'مصطفى', 'موسى', 'عيسى', 'يحيى', 'مرتضى', 'مجتبى', 'علاء', 'بهاء', 'ضياء', 'زكريا', 'زكرياء']);
const WOMEN = new Set(['مريم', 'زينب', 'هند', 'سعاد', 'نور', 'رنا', 'هيا', 'لينا', 'دانا', 'ريم', 'رهف', 'جود', 'غدير', 'ياسمين', 'نسرين', 'شيرين', 'رغد', 'لجين', 'بيان', 'حنان', 'جنان',
  'إيمان', 'ايمان', 'أمل', 'امل', 'منال', 'نوال', 'سحر', 'عبير', 'ابتسام', 'إلهام', 'الهام', 'أحلام', 'احلام', 'آمال', 'سهام', 'وداد', 'رحاب', 'عفاف', 'نهاد', 'وعد', 'شهد', 'رزان', 'ميار', 'روان', 'لمياء', 'هديل', 'أريج', 'اريج', 'مرام', 'سلمى', 'ندى', 'منى', 'هدى', 'لبنى', 'نجوى', 'سلوى']);
function isWomansName(name: string): boolean {
  if (MEN_LIKE_WOMEN.has(name)) return false;
  return WOMEN.has(name) || /(?:ة|ى|اء)$/u.test(name);
}

export function expandAbbreviations(text: string): string {
  for (const [re, rep] of RULES) text = text.replace(re, rep);
  for (const [re, man, woman] of TITLES) {
    text = text.replace(re, (_m, off: number, s: string) => {
      const name = /^\s*(\p{L}+)/u.exec(s.slice(off + _m.length))?.[1] ?? '';
      return `${isWomansName(name) ? woman : man} `;
    });
  }
  // a lone و belongs to the next word (و د. خالد → والدكتور خالد)
  return text.replace(/(^|\s)و\s+(?=\p{L})/gu, '$1و');
}
