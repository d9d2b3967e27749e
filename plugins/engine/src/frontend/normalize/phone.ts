/**
 * Phone numbers and long digit strings, read digit by digit: numbers with a
 * leading + (زائد), numbers of 7+ digits starting with 0, digit groups joined
 * by spaces or dashes after a phone word (هاتف، جوال، اتصل…), and any run of
 * 14 or more digits (account numbers, IDs). Groups stay separated by spaces.
 */
import { digitByDigit } from './cardinals.js';

const PHONE_WORD = '(?:هاتف|الهاتف|هاتفي|جوال|الجوال|جوالي|موبايل|الموبايل|تلفون|التلفون|فاكس|الفاكس|واتساب|الواتساب|اتصل|اتصلوا|اتصال|للاتصال|للتواصل|تواصل|للحجز|للاستفسار|للاستفسارات|رقم الهاتف|رقم الجوال|الرقم|برقم|رقم)';
const read = (s: string) => s.trim().split(/[\s-]+/u).map(digitByDigit).filter(Boolean).join(' ');

export function normalizePhones(text: string): string {
  // +966 50 123 4567, +1-800-555-0199
  text = text.replace(/(?<![\p{L}\d])\+\s?\d[\d\s-]{5,}\d(?![\d.])/gu, (m) => `زائد ${read(m.replace(/^\+/u, ''))}`);
  // after a phone word: any digit groups of 5+ digits in all
  text = text.replace(new RegExp(`(${PHONE_WORD}(?:\\s+(?:على|عبر|على الرقم|الرقم|رقم))?[\\s:：]*)(\\d[\\d\\s-]*\\d)(?![\\d.,])`, 'gu'), (all, pre, num: string) => {
    const digits = num.replace(/\D/gu, '');
    return digits.length >= 5 ? pre + read(num) : all;
  });
  // 0501234567, 050 123 4567, 050-123-4567
  text = text.replace(/(?<![\p{L}\d.,])0\d{1,4}(?:[\s-]?\d{2,4}){1,4}(?![\d.,])/gu, (m) => (m.replace(/\D/gu, '').length >= 7 ? read(m) : m));
  // long digit strings; from 10 digits when no word follows and it is not round (a quantity is followed
  // by its noun or ends in zeros: 1400000000 نسمة، 3000000000; an ID or a number to dial is neither)
  text = text.replace(/(?<![\d.])\d{14,}(?![\d.])/gu, digitByDigit);
  return text.replace(/(?<![\d.,])\d{10,13}(?![\d.,]|\s*[\p{L}%$€£¥﷼])/gu, (m) => (m.endsWith('000') ? m : digitByDigit(m)));
}
