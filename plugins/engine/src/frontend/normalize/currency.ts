/**
 * Money: amounts with a currency symbol ($، €، £، ¥، ﷼), an ISO code (USD، SAR…)
 * or an Arabic abbreviation (ر.س، د.إ، ج.م…), read with the currency's noun in
 * the right number (ريال واحد، ريالان، ثلاثة ريالات، أحد عشر ريالاً، مئة ريال)
 * and the sub-unit for decimals (12.50 $ → اثنا عشر دولاراً وخمسون سنتاً).
 * Codes add the nationality adjective (SAR → ريال سعودي), which agrees too.
 */
import { countNoun, readNumber } from './cardinals.js';
import { caseAt } from './context.js';
import { NOUNS, type Case } from './nouns.js';

export interface Currency { noun: string; adjective?: string; sub?: string; subPer?: number }

const C = (noun: string, adjective?: string, sub?: string, subPer = 100): Currency => ({ noun, adjective, sub, subPer });

/** By noun id, for amounts written with the currency's Arabic name. */
export const BY_NOUN: Record<string, Currency> = {
  riyal: C('riyal', undefined, 'halala'), dirham: C('dirham', undefined, 'fils'), dinar: C('dinar', undefined, 'fils', 1000),
  pound: C('pound', undefined, 'piastre'), dollar: C('dollar', undefined, 'cent'), euro: C('euro', undefined, 'cent'),
  lira: C('lira'), yen: C('yen'),
};

export const BY_CODE: Record<string, Currency> = {
  USD: C('dollar', 'أمريكي', 'cent'), EUR: C('euro', undefined, 'cent'), GBP: C('pound', 'إسترليني'), JPY: C('yen', 'ياباني'),
  SAR: C('riyal', 'سعودي', 'halala'), QAR: C('riyal', 'قطري', 'dirham'), OMR: C('riyal', 'عماني', 'baisa', 1000), YER: C('riyal', 'يمني'),
  AED: C('dirham', 'إماراتي', 'fils'), MAD: C('dirham', 'مغربي'), KWD: C('dinar', 'كويتي', 'fils', 1000), BHD: C('dinar', 'بحريني', 'fils', 1000),
  JOD: C('dinar', 'أردني', 'piastre'), IQD: C('dinar', 'عراقي'), TND: C('dinar', 'تونسي'), DZD: C('dinar', 'جزائري'), LYD: C('dinar', 'ليبي'),
  EGP: C('pound', 'مصري', 'piastre'), SDG: C('pound', 'سوداني'), LBP: C('lira', 'لبناني'), SYP: C('lira', 'سوري'), TRY: C('lira', 'تركي'),
  'ر.س': C('riyal', 'سعودي', 'halala'), 'ر.ق': C('riyal', 'قطري', 'dirham'), 'ر.ع': C('riyal', 'عماني', 'baisa', 1000), 'د.إ': C('dirham', 'إماراتي', 'fils'),
  'د.ك': C('dinar', 'كويتي', 'fils', 1000), 'د.ب': C('dinar', 'بحريني', 'fils', 1000), 'د.أ': C('dinar', 'أردني', 'piastre'), 'د.ع': C('dinar', 'عراقي'),
  'ج.م': C('pound', 'مصري', 'piastre'), 'ل.ل': C('lira', 'لبناني'), 'د.م': C('dirham', 'مغربي'), 'د.ت': C('dinar', 'تونسي'), 'د.ج': C('dinar', 'جزائري'),
  '$': C('dollar', undefined, 'cent'), '€': C('euro', undefined, 'cent'), '£': C('pound', 'إسترليني'), '¥': C('yen'), '﷼': C('riyal', undefined, 'halala'),
};

/** Nationality adjectives recognized after a currency name (ريال سعودي). */
export const ADJECTIVES = ['سعودي', 'قطري', 'عماني', 'يمني', 'إماراتي', 'اماراتي', 'مغربي', 'كويتي', 'بحريني', 'أردني', 'اردني', 'عراقي', 'تونسي', 'جزائري', 'ليبي', 'مصري', 'سوداني', 'لبناني', 'سوري', 'تركي', 'أمريكي', 'أميركي', 'امريكي', 'إسترليني', 'استرليني', 'كندي', 'أسترالي', 'ياباني'];
const ADJ_RE = new RegExp(`^(${ADJECTIVES.join('|')})(?:ان|ين|ة|تان|تين|اً|ًا|ا)?$`, 'u');
/** The adjective stem of a word (سعودية → سعودي), or undefined. */
export function adjectiveStem(word: string): string | undefined {
  return ADJ_RE.exec(word)?.[1];
}

/** An amount in words with its currency. */
export function readMoney(amount: string, cur: Currency, c: Case): string {
  const neg = /^[-−]/u.test(amount);
  const [int, dec] = amount.replace(/^[-−]/u, '').split('.');
  const main = NOUNS[cur.noun]!;
  let out: string;
  if (dec && /[1-9]/u.test(dec) && !cur.sub) {
    out = `${readNumber(`${int}.${dec}`, { case: c })} ${main.sing}${cur.adjective ? ` ${cur.adjective}${main.gender === 'f' ? 'ة' : ''}` : ''}`;
  } else {
    const parts: string[] = [];
    if (/[1-9]/u.test(int!) || !dec || !/[1-9]/u.test(dec)) parts.push(countNoun(int!, main, { case: c, adjective: cur.adjective }));
    if (dec && /[1-9]/u.test(dec) && cur.sub) {
      const digits = String(cur.subPer ?? 100).length - 1;
      const sub = Number(dec.padEnd(digits, '0').slice(0, digits));
      parts.push(countNoun(sub, NOUNS[cur.sub]!, { case: c }));
    }
    out = parts.join(' و');
  }
  return neg ? `سالب ${out}` : out;
}

const esc = (s: string) => s.replace(/[.$*+?^()[\]{}|\\]/gu, '\\$&');
const KEYS = Object.keys(BY_CODE).sort((a, b) => b.length - a.length).map(esc).join('|');
const AMOUNT = '([-−]?\\d+(?:\\.\\d+)?)';

/** Amounts written with a symbol, code or abbreviation, before or after the number. */
export function normalizeCurrency(text: string): string {
  const after = new RegExp(`(?<![\\p{L}\\d.])${AMOUNT}\\s?(${KEYS})(?![\\p{L}])`, 'gu');
  const before = new RegExp(`(?<![\\p{L}])(${KEYS})\\s?${AMOUNT}(?![\\d])`, 'gu');
  text = text.replace(after, (_all, amount, key, off: number, s: string) => readMoney(amount, BY_CODE[key]!, caseAt(s, off)));
  return text.replace(before, (_all, key, amount, off: number, s: string) => readMoney(amount, BY_CODE[key]!, caseAt(s, off)));
}
