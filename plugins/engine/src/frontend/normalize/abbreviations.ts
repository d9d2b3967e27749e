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
  [new RegExp(`${L}أ\\.\\s?د\\.?(?=\\s*\\p{L})`, 'gu'), 'الأستاذ الدكتور '],
  [new RegExp(`${L}ج\\.م\\.ع\\.?`, 'gu'), 'جمهورية مصر العربية'],
  [new RegExp(`${L}ص\\.\\s?ب\\.?`, 'gu'), 'صندوق بريد'],
  [new RegExp(`${L}ق\\.\\s?م\\.?`, 'gu'), 'قبل الميلاد'],
  [new RegExp(`${L}(?:إلخ|الخ)(?![\\p{L}])`, 'gu'), 'إلى آخره'],
  [new RegExp(`${L}د\\.\\s?(?=\\p{L})`, 'gu'), 'الدكتور '],
  [new RegExp(`${L}م\\.\\s?(?=\\p{L})`, 'gu'), 'المهندس '],
  [new RegExp(`${L}أ\\.\\s?(?=\\p{L})`, 'gu'), 'الأستاذ '],
  [new RegExp(`${L}ش\\.\\s?(?=\\p{L})`, 'gu'), 'شارع '],
  [new RegExp(`${L}ص\\.\\s?(?=\\d)`, 'gu'), 'صفحة '],
  [new RegExp(`${L}ت\\s?:\\s?(?=[\\d+])`, 'gu'), 'هاتف '],
];

export function expandAbbreviations(text: string): string {
  for (const [re, rep] of RULES) text = text.replace(re, rep);
  return text;
}
