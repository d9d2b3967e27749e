/**
 * Units of measure written as abbreviations after a number (3 كم، 120 م²، 90 كم/س، 250 غ، 5 مل،
 * -5°م), read as their noun in agreement with the number (Ryding ch. 15; Wright I §§ 320–325):
 * ثلاثة كيلومترات، أحد عشر كيلومتراً، مئة وعشرون متراً مربعاً، كيلوغرامان، خمس درجات مئوية.
 * A square or cubic unit takes the adjective مربع/مكعب, which agrees with the noun as a
 * non-human plural does (ثلاثة أمتار مربعة); a rate adds "في الساعة"/"في الثانية"; Fahrenheit is
 * named after the noun. A range before the unit (3-5 كم، 10 إلى 15 كغ) reads its first number
 * with the unit's gender too. A temperature written with the degree sign first (°5) is read the
 * same. Runs after dates and times (2024م is a year, 10:30 م an evening) and before the
 * abbreviations (5 م. is metres, not a title).
 */
import { cardinal, countNoun, readNumber } from './cardinals.js';
import { caseAt, numberCaseAt } from './context.js';
import { NOUNS, type Case, type Noun } from './nouns.js';

export interface Unit {
  noun: Noun;
  /** A relative adjective that agrees with the noun (مربع، مكعب، مئوي). */
  adjective?: string;
  /** Words read after the noun and its adjective, unchanged (في الساعة، فهرنهايت). */
  tail?: string;
}

const U = (id: string, adjective?: string, tail?: string): Unit => ({ noun: NOUNS[id]!, adjective, tail });
const PER_HOUR = 'في الساعة';
const PER_SECOND = 'في الثانية';

/**
 * Abbreviations, Arabic and Latin, as written after a number. A single Latin letter (m, g, L) is left
 * out: after a number it is as often something else (5m, 4g, 3L).
 */
export const UNITS: Record<string, Unit> = {
  'م': U('meter'),
  'م²': U('meter', 'مربع'), 'م2': U('meter', 'مربع'), 'م٢': U('meter', 'مربع'), 'm²': U('meter', 'مربع'), 'm2': U('meter', 'مربع'), 'مم²': U('mm', 'مربع'),
  'م³': U('meter', 'مكعب'), 'م3': U('meter', 'مكعب'), 'م٣': U('meter', 'مكعب'), 'm³': U('meter', 'مكعب'), 'm3': U('meter', 'مكعب'),
  'كم': U('km'), 'كلم': U('km'), 'km': U('km'),
  'كم²': U('km', 'مربع'), 'كم2': U('km', 'مربع'), 'كم٢': U('km', 'مربع'), 'km²': U('km', 'مربع'), 'km2': U('km', 'مربع'),
  'كم/س': U('km', undefined, PER_HOUR), 'كم/ساعة': U('km', undefined, PER_HOUR), 'كم/سا': U('km', undefined, PER_HOUR), 'كلم/س': U('km', undefined, PER_HOUR),
  'كم/ث': U('km', undefined, PER_SECOND), 'km/h': U('km', undefined, PER_HOUR), 'كم في الساعة': U('km', undefined, PER_HOUR),
  'م/ث': U('meter', undefined, PER_SECOND), 'm/s': U('meter', undefined, PER_SECOND),
  'كغ': U('kg'), 'كجم': U('kg'), 'كلغ': U('kg'), 'كغم': U('kg'), 'kg': U('kg'),
  'غ': U('gram'), 'غم': U('gram'), 'جم': U('gram'),
  'ملغ': U('mg'), 'مغ': U('mg'), 'ملجم': U('mg'), 'mg': U('mg'),
  'سم': U('cm'), 'cm': U('cm'), 'سم²': U('cm', 'مربع'), 'سم2': U('cm', 'مربع'), 'cm²': U('cm', 'مربع'), 'سم³': U('cm', 'مكعب'), 'سم3': U('cm', 'مكعب'), 'cm³': U('cm', 'مكعب'),
  'مم': U('mm'), 'mm': U('mm'),
  'مل': U('ml'), 'ملل': U('ml'), 'ml': U('ml'), 'mL': U('ml'),
  'ل': U('liter'), 'لتر': U('liter'),
  'طن': U('ton'),
  '°م': U('degree', 'مئوي'), '°C': U('degree', 'مئوي'), '°س': U('degree', 'مئوي'),
  '°ف': U('degree', undefined, 'فهرنهايت'), '°F': U('degree', undefined, 'فهرنهايت'),
  '°': U('degree'),
};

const esc = (s: string) => s.replace(/[.$*+?^()[\]{}|\\/]/gu, '\\$&');
const KEYS = Object.keys(UNITS).sort((a, b) => b.length - a.length).map(esc).join('|');
/** The unit right after a number: not the start of a longer word, nor ل.س (a currency). */
const UNIT_AFTER = `\\s?(${KEYS})(?![\\p{L}\\p{N}²³/]|\\.\\p{L})`;
const NUM = '([-−+]?\\d+(?:\\.\\d+)?)';
/** Connectors of a range: 3-5، 3 إلى 5، بين 3 و5، 3 أو 4. */
const RANGE = '(\\s?[-–]\\s?|\\s+(?:إلى|الى|حتى|أو|او)\\s+|\\s+و\\s?)';

const AFTER_SCALE = new RegExp(`(\\d\\s+(?:ألف|آلاف|مليون|ملايين|مليار|مليارات))${UNIT_AFTER}`, 'gu');
const RANGE_WITH_UNIT = new RegExp(`(?<![\\p{L}\\p{N}.,])([وف]?[بل]?)${NUM}${RANGE}${NUM}${UNIT_AFTER}`, 'gu');
const WITH_UNIT = new RegExp(`(?<![\\p{L}\\p{N}.,])([وف]?[بل]?)${NUM}${UNIT_AFTER}`, 'gu');

/** The unit's noun, with its adjective and tail, as the singular in construct (ربع كيلوغرام، نصف متر مربع). */
export function unitSingular(u: Unit): string {
  return [u.noun.sing, u.adjective ? (u.noun.gender === 'f' ? `${u.adjective}ة` : u.adjective) : '', u.tail ?? ''].filter(Boolean).join(' ');
}

/** A number with its unit, in agreement; decimals take the singular (اثنان فاصلة خمسة كيلومتر). */
export function readUnit(value: string, u: Unit, c: Case): string {
  const sign = /^[-−]/u.test(value) ? 'سالب ' : /^\+/u.test(value) ? 'زائد ' : '';
  const num = value.replace(/^[-−+]/u, '');
  const words = num.includes('.')
    ? `${readNumber(num, { case: c })} ${unitSingular(u)}`
    : `${countNoun(num, u.noun, { case: c, adjective: u.adjective })}${u.tail ? ` ${u.tail}` : ''}`;
  return sign + words;
}

export function normalizeUnits(text: string): string {
  // the degree sign before the number (°5، ° 30), and the one-character ℃/℉
  text = text
    .replace(/℃/gu, '°م').replace(/℉/gu, '°ف')
    .replace(/°\s?(?:C|س)(?![\p{L}])/gu, '°م').replace(/°\s?F(?![\p{L}])/gu, '°ف')
    .replace(/(?<![\d.])°\s?([-−+]?\d+(?:\.\d+)?)(?![\d.°])/gu, '$1°');
  // a scale word between the number and the unit: the unit is the genitive singular after it (2,15 مليون كم²)
  text = text.replace(AFTER_SCALE, (_all, head: string, abbr: string) => `${head} ${unitSingular(UNITS[abbr]!)}`);
  // a range before the unit: the first number in the unit's gender, the connector, then the count
  text = text.replace(RANGE_WITH_UNIT, (_all, prefix: string, a: string, between: string, b: string, abbr: string, off: number, s: string) => {
    const u = UNITS[abbr]!;
    const c = caseAt(s, off + prefix.length, prefix.replace(/^[وف]/u, ''));
    const conn = /[-–]/u.test(between) ? 'إلى' : between.trim();
    // after إلى/حتى the second number is genitive; after و/أو it shares the first one's case
    const c2: Case = conn === 'إلى' || conn === 'الى' || conn === 'حتى' ? 'gen' : c;
    const first = a.includes('.') ? readNumber(a, { case: c }) : readFirst(a, u, c);
    return `${prefix}${first} ${conn === 'و' ? 'و' : `${conn} `}${readUnit(b, u, c2)}`;
  });
  return text.replace(WITH_UNIT, (_all, prefix: string, value: string, abbr: string, off: number, s: string) => {
    const c = numberCaseAt(s, off + prefix.length, prefix);
    return prefix + readUnit(value, UNITS[abbr]!, c);
  });
}

/** The first number of a range, in the gender of the unit counted after the second. */
function readFirst(value: string, u: Unit, c: Case): string {
  const sign = /^[-−]/u.test(value) ? 'سالب ' : '';
  const num = value.replace(/^[-−+]/u, '');
  // one and two are the noun itself, singular or dual (من كيلوغرام إلى ثلاثة، متر إلى مترين)
  if (!sign && num === '1') return c === 'acc' ? u.noun.acc : u.noun.sing;
  if (!sign && num === '2') return countNoun(2, u.noun, { case: c });
  return sign + cardinal(num, { gender: u.noun.gender, case: c });
}
