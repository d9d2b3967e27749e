/**
 * <say-as>: the element's text rewritten as the words the front end reads, through the
 * normalizer's own readers (numbers, ordinals, digits, dates, times, money), so that a say-as
 * reads exactly as the same thing recognized in plain text does. What cannot be read the way
 * interpret-as says is a 400, never read as something else.
 */
import { errors } from '@sawt/core';
import { ARABIC_LETTER_NAMES, baseLetter } from '../latin/letters.js';
import { BY_CODE, readMoney } from '../normalize/currency.js';
import { GREGORIAN } from '../normalize/dates.js';
import { stripThousands, toWesternDigits } from '../normalize/digits.js';
import { digitByDigit, normalizeArabic, ordinal, readNumber, type Gender } from '../normalize/index.js';

export const SAY_AS_TYPES = ['characters', 'spell-out', 'digits', 'cardinal', 'number', 'ordinal', 'telephone', 'date', 'time', 'currency', 'verbatim'] as const;
export type SayAsType = (typeof SAY_AS_TYPES)[number];

export const DATE_FORMATS = ['dmy', 'mdy', 'ymd', 'ydm', 'dm', 'md', 'my', 'ym', 'd', 'm', 'y'] as const;

export interface SayAs {
  interpretAs: SayAsType;
  format?: string;
  /** A gender hint (detail="feminine"), for the agreement of numbers and ordinals. */
  detail?: string;
}

/** Arabic letters by their names (the way they are spelled aloud). */
const ARABIC_LETTERS: Record<string, string> = {
  'ا': 'ألف', 'أ': 'ألف همزة', 'إ': 'ألف همزة', 'آ': 'ألف مدة', 'ء': 'همزة', 'ؤ': 'واو همزة', 'ئ': 'ياء همزة', 'ب': 'باء', 'ت': 'تاء',
  'ة': 'تاء مربوطة', 'ث': 'ثاء', 'ج': 'جيم', 'ح': 'حاء', 'خ': 'خاء', 'د': 'دال', 'ذ': 'ذال', 'ر': 'راء', 'ز': 'زاي', 'س': 'سين',
  'ش': 'شين', 'ص': 'صاد', 'ض': 'ضاد', 'ط': 'طاء', 'ظ': 'ظاء', 'ع': 'عين', 'غ': 'غين', 'ف': 'فاء', 'ق': 'قاف', 'ك': 'كاف', 'ل': 'لام',
  'م': 'ميم', 'ن': 'نون', 'ه': 'هاء', 'و': 'واو', 'ي': 'ياء', 'ى': 'ألف مقصورة',
};
/** Symbols named by verbatim (characters and spell-out skip them). */
const SYMBOLS: Record<string, string> = {
  '.': 'نقطة', ',': 'فاصلة', '،': 'فاصلة', '-': 'شرطة', '_': 'شرطة سفلية', '/': 'شرطة مائلة', '@': 'آت', '#': 'هاش', '+': 'زائد',
  '*': 'نجمة', '&': 'و', '%': 'بالمئة', ':': 'نقطتان', '=': 'يساوي', '?': 'علامة استفهام', '؟': 'علامة استفهام', '!': 'علامة تعجب',
};

function refuse(say: SayAs, content: string, where: string, expected: string): never {
  throw errors.validation(`SSML: <say-as interpret-as="${say.interpretAs}"> at ${where} cannot read '${content.length > 40 ? `${content.slice(0, 40)}…` : content}': ${expected}`);
}

function genderOf(detail: string | undefined, where: string): Gender {
  if (detail === undefined) return 'm';
  const d = detail.trim().toLowerCase();
  if (['f', 'feminine', 'female', 'مؤنث'].includes(d)) return 'f';
  if (['m', 'masculine', 'male', 'مذكر'].includes(d)) return 'm';
  throw errors.validation(`SSML: <say-as detail="${detail}"> at ${where}: the detail of a number is its gender, feminine or masculine`);
}

/** Western digits, no thousands separators, no surrounding space. */
const digitsOf = (s: string) => stripThousands(toWesternDigits(s.trim())).replace(/٬/gu, '');

function spell(content: string, verbatim: boolean): string {
  const names: string[] = [];
  for (const ch of content.normalize('NFC')) {
    if (/\p{M}/u.test(ch) || /\s/u.test(ch)) continue;
    if (ARABIC_LETTERS[ch]) names.push(ARABIC_LETTERS[ch]);
    else if (/\d/u.test(toWesternDigits(ch))) names.push(digitByDigit(toWesternDigits(ch)));
    else if (ARABIC_LETTER_NAMES[baseLetter(ch)]) names.push(ARABIC_LETTER_NAMES[baseLetter(ch)]!);
    else if (verbatim && SYMBOLS[ch]) names.push(SYMBOLS[ch]);
  }
  return names.join(' ');
}

function readDateParts(parts: Record<'d' | 'm' | 'y', string | undefined>, say: SayAs, content: string, where: string): string {
  const { d, m, y } = parts;
  const day = d === undefined ? undefined : Number(d);
  const month = m === undefined ? undefined : Number(m);
  if (day !== undefined && !(day >= 1 && day <= 31)) refuse(say, content, where, `day ${d} is not 1 to 31`);
  if (month !== undefined && !(month >= 1 && month <= 12)) refuse(say, content, where, `month ${m} is not 1 to 12`);
  if (y !== undefined && !/^\d{4}$/u.test(y) && !(day !== undefined && month !== undefined && /^\d{2}$/u.test(y))) {
    refuse(say, content, where, `the year ${y} needs 4 digits`);
  }
  // Each form is one the normalizer reads as a date (its own wording, ordinals and case).
  if (day !== undefined && month !== undefined && y !== undefined) return normalizeArabic(`${day}/${month}/${y}`);
  if (day !== undefined && month !== undefined) return normalizeArabic(`${day} ${GREGORIAN[month - 1]}`);
  if (month !== undefined && y !== undefined) return normalizeArabic(`${GREGORIAN[month - 1]} ${y}`);
  if (day !== undefined) return ordinal(day);
  if (month !== undefined) return GREGORIAN[month - 1]!;
  return readNumber(y!);
}

function readDate(content: string, say: SayAs, where: string): string {
  const format = (say.format ?? 'dmy').trim().toLowerCase();
  if (!(DATE_FORMATS as readonly string[]).includes(format)) {
    throw errors.validation(`SSML: <say-as interpret-as="date" format="${say.format}"> at ${where}: use one of ${DATE_FORMATS.join(', ')}`);
  }
  const fields = digitsOf(content).split(/[/.\-\s]+/u).filter(Boolean);
  if (fields.length !== format.length || fields.some((f) => !/^\d{1,4}$/u.test(f))) refuse(say, content, where, `expected a date written ${format} (e.g. ${format.split('').map((c) => ({ d: '15', m: '03', y: '2024' })[c]).join('/')})`);
  const parts: Record<'d' | 'm' | 'y', string | undefined> = { d: undefined, m: undefined, y: undefined };
  [...format].forEach((c, i) => (parts[c as 'd' | 'm' | 'y'] = fields[i]));
  return readDateParts(parts, say, content, where);
}

const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*(am|pm|a\.m\.|p\.m\.|ص|م|صباحاً|صباحا|مساءً|مساء))?$/iu;

function readTime(content: string, say: SayAs, where: string): string {
  const text = digitsOf(content);
  const m = TIME.exec(text);
  if (!m || Number(m[1]) > 24 || Number(m[2]) > 59 || (m[3] !== undefined && Number(m[3]) > 59)) refuse(say, content, where, 'expected a time hh:mm or hh:mm:ss, with am/pm or ص/م if wanted');
  return normalizeArabic(text);
}

const esc = (s: string) => s.replace(/[.$*+?^()[\]{}|\\]/gu, '\\$&');
const CURRENCY_KEYS = Object.keys(BY_CODE).sort((a, b) => b.length - a.length).map(esc).join('|');
const MONEY = new RegExp(`^(${CURRENCY_KEYS})?\\s*([-−]?\\d+(?:\\.\\d+)?)\\s*(${CURRENCY_KEYS})?$`, 'u');

function readCurrency(content: string, say: SayAs, where: string): string {
  const m = MONEY.exec(digitsOf(content));
  const key = m?.[1] ?? m?.[3] ?? say.format?.trim().toUpperCase();
  if (!m || (m[1] && m[3])) refuse(say, content, where, 'expected an amount with a currency symbol or code (12.50 USD, $12.50, 100 ر.س)');
  const currency = key === undefined ? undefined : BY_CODE[key];
  if (!currency) refuse(say, content, where, `no currency named (write its code or symbol, or format="USD"); known codes: ${Object.keys(BY_CODE).filter((k) => /^[A-Z]{3}$/u.test(k)).join(', ')}`);
  return readMoney(m[2]!, currency, 'nom');
}

function readTelephone(content: string, say: SayAs, where: string): string {
  const text = toWesternDigits(content.trim());
  if (!/^\+?[\d\s\-().]+$/u.test(text) || !/\d/u.test(text)) refuse(say, content, where, 'expected digits, with + ( ) - or spaces between groups');
  const groups = text.replace(/^\+/u, '').split(/[\s\-().]+/u).filter(Boolean).map(digitByDigit);
  return `${text.startsWith('+') ? 'زائد ' : ''}${groups.join(' ')}`;
}

/** The words that `content` reads as under `say`; 400 when it cannot be read that way. */
export function expandSayAs(content: string, say: SayAs, where: string): string {
  const text = content.trim();
  if (!text) return '';
  switch (say.interpretAs) {
    case 'characters':
    case 'spell-out':
    case 'verbatim':
      return spell(text, say.interpretAs === 'verbatim');
    case 'digits': {
      const digits = digitsOf(text);
      if (!/^[\d\s]+$/u.test(digits)) refuse(say, content, where, 'expected digits only');
      return digitByDigit(digits);
    }
    case 'cardinal':
    case 'number': {
      const n = digitsOf(text);
      if (!/^[-−]?\d+(?:\.\d+)?$/u.test(n)) refuse(say, content, where, 'expected a number (123, -4, 2.5)');
      return readNumber(n, { gender: genderOf(say.detail, where) });
    }
    case 'ordinal': {
      const n = digitsOf(text).replace(/(?:st|nd|rd|th|ـ?\.)$/u, '');
      if (!/^\d+$/u.test(n) || Number(n) < 1) refuse(say, content, where, 'expected a whole number from 1');
      return ordinal(n, { gender: genderOf(say.detail, where) });
    }
    case 'telephone':
      return readTelephone(text, say, where);
    case 'date':
      return readDate(text, say, where);
    case 'time':
      return readTime(text, say, where);
    case 'currency':
      return readCurrency(text, say, where);
  }
}
