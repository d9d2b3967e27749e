/**
 * Phone numbers and long digit strings, read digit by digit: numbers with a
 * leading + (زائد), numbers of 7+ digits starting with 0, digit groups joined
 * by spaces or dashes after a phone word (هاتف، جوال، اتصل…), and any run of
 * 14 or more digits (account numbers, IDs). Groups stay separated by spaces.
 */
import { digitByDigit } from './cardinals.js';

const PHONE_WORD = '(?:هاتف|الهاتف|هاتفي|جوال|الجوال|جوالي|موبايل|الموبايل|تلفون|التلفون|فاكس|الفاكس|واتساب|الواتساب|اتصل|اتصلوا|اتصال|للاتصال|للتواصل|تواصل|للحجز|للاستفسار|للاستفسارات|رقم الهاتف|رقم الجوال|الرقم|برقم|رقم)';
const read = (s: string) => s.trim().split(/[\s-]+/u).map(digitByDigit).filter(Boolean).join(' ');

/** Words after which a digit string is an identifier, read digit by digit (a noun or two may follow: رقم العميل، رقم بطاقة الهوية). */
const ID_WORD = '(?:[وفبل]?(?:ال)?(?:رقم|حساب|بطاقة|آيبان|ايبان|أيبان|طلب|طلبية|شحنة|تتبع|مرجع|هوية|إقامة|اقامة|جواز|عميل|فاتورة|عقد|سجل|بوليصة|وثيقة|تذكرة|حجز|مرجعي)|IBAN|iban|ID|No\\.?)';
/** Words after which a digit string is a code: رمز التحقق، الكود، OTP، PIN، كلمة المرور. */
const CODE_WORD = '(?:[وفبل]?(?:ال)?(?:رمز|كود|كلمة المرور|كلمة السر|رقم سري|الرقم السري)|OTP|PIN|otp|pin|Code|code)';
/** A currency name after the digits makes them an amount, whatever came before (رقم الفاتورة 500 ريال). */
const CURRENCY_AFTER = /^\s*(?:[وفبل]?(?:ال)?(?:ريال|دولار|درهم|دينار|جنيه|يورو|ليرة|ين|فلس|هللة|سنت|قرش)|ريالات|دولارات|دراهم|دنانير|جنيهات|ليرات)/u;
/** Digit groups, as written: 0098 7654 32، 1234-5678. */
const GROUPS = '\\d+(?:[ -]\\d+)*';

export function normalizePhones(text: string): string {
  // masked numbers: ****7731، XXXX-1234، •••• 4421 (the mask is not read; the digits are, one by one)
  text = text.replace(/(?:[*xX•#×]{2,}[\s-]?)+(\d{2,})(?!\d)/gu, (_m, d: string) => ` ${digitByDigit(d)}`);
  // IBAN: SA03 8000 0000 6080 1016 7519 (letters kept for the Latin reader, digits one by one)
  text = text.replace(/(?<![\p{L}\d])([A-Z]{2})(\d{2})((?:\s?[A-Z\d]{4}){2,}(?:\s?[A-Z\d]{1,3})?)(?![\p{L}\d])/gu, (_m, cc: string, chk: string, rest: string) =>
    `${cc} ${digitByDigit(chk)} ${read(rest.replace(/[A-Z]+/gu, (l) => ` ${l} `))}`.replace(/\s+/gu, ' '));
  // codes: any length from 3 digits, after the code word and up to two words (التحقق، الخاص بك) or هو/:
  text = text.replace(new RegExp(`(${CODE_WORD}(?:\\s+[\\p{L}]+){0,3}?[\\s:：]*(?:هو\\s+|is\\s+)?[#:]?\\s*)(\\d{3,}(?:[ -]\\d+)*)(?!\\d|[.,]\\d)`, 'gu'), (all, pre: string, num: string, off: number, s: string) =>
    CURRENCY_AFTER.test(s.slice(off + all.length)) ? all : pre + read(num));
  // identifiers (account, card, order, shipment, customer… numbers) from 5 digits or with a leading zero
  text = text.replace(new RegExp(`(${ID_WORD}(?:\\s+[\\p{L}]+){0,2}?[\\s:：]*(?:هو\\s+)?#?\\s*)(${GROUPS})(?!\\d|[.,]\\d)`, 'gu'), (all, pre: string, num: string, off: number, s: string) => {
    const digits = num.replace(/\D/gu, '');
    if (CURRENCY_AFTER.test(s.slice(off + all.length))) return all;
    return digits.length >= 5 || (digits.length >= 3 && digits.startsWith('0')) ? pre + read(num) : all;
  });
  // +966 50 123 4567, +1-800-555-0199
  text = text.replace(/(?<![\p{L}\d])\+\s?\d[\d\s-]{5,}\d(?!\d|\.\d)/gu, (m) => `زائد ${read(m.replace(/^\+/u, ''))}`);
  // after a phone word: any digit groups of 5+ digits in all
  text = text.replace(new RegExp(`(${PHONE_WORD}(?:\\s+(?:على|عبر|على الرقم|الرقم|رقم))?[\\s:：]*)(\\d[\\d\\s-]*\\d)(?!\\d|[.,]\\d)`, 'gu'), (all, pre, num: string, off: number, s: string) => {
    const digits = num.replace(/\D/gu, '');
    return digits.length >= 5 && !CURRENCY_AFTER.test(s.slice(off + all.length)) ? pre + read(num) : all;
  });
  // 0501234567, 050 123 4567, 050-123-4567
  text = text.replace(/(?<![\p{L}\d.,])0\d{1,4}(?:[\s-]?\d{2,4}){1,4}(?!\d|[.,]\d)/gu, (m) => (m.replace(/\D/gu, '').length >= 7 ? read(m) : m));
  // long digit strings; from 10 digits when no word follows and it is not round (a quantity is followed
  // by its noun or ends in zeros: 1400000000 نسمة، 3000000000; an ID or a number to dial is neither)
  // (a sign before it makes it a number, read with its sign at any length: -12345678901234)
  text = text.replace(/(?<![\d.]|(?<![\p{L}\p{N}])[-−])\d{14,}(?![\d.])/gu, digitByDigit);
  return text.replace(/(?<![\d.,]|(?<![\p{L}\p{N}])[-−])\d{10,13}(?![\d.,]|\s*[\p{L}%$€£¥﷼])/gu, (m) => (m.endsWith('000') ? m : digitByDigit(m)));
}
