/**
 * Numbers to Modern Standard Arabic words: cardinals from 0 to below 10^15
 * with gender (of the counted noun) and case (nominative, or genitive which is
 * also the written accusative of duals and tens), counted-noun agreement and
 * ordinals. Output is undiacritized except the accusative tanween of a counted
 * noun after 11–99 (ريالاً), which changes how it is read.
 */
import { NOUNS, type Case, type Gender, type Noun } from './nouns.js';

export interface NumberOptions {
  /** Gender of the counted noun (the number takes the opposite form for 3–10). Default 'm'. */
  gender?: Gender;
  /** Default 'nom'. 'acc' is 'gen' plus the tanween of a compound's unit (خمساً وأربعين). */
  case?: Case;
  /** A noun follows directly: a final dual (مئتان، ألفان) becomes construct (مئتا، ألفا). */
  construct?: boolean;
  /** The definite cardinal before its noun (الـ48 ساعة → الثماني والأربعين): ال on each part. */
  definite?: boolean;
}

const UNITS_M = ['صفر', 'واحد', 'اثنان', 'ثلاثة', 'أربعة', 'خمسة', 'ستة', 'سبعة', 'ثمانية', 'تسعة', 'عشرة'];
const UNITS_F = ['صفر', 'واحدة', 'اثنتان', 'ثلاث', 'أربع', 'خمس', 'ست', 'سبع', 'ثماني', 'تسع', 'عشر'];
const TENS = ['', '', 'عشر', 'ثلاث', 'أربع', 'خمس', 'ست', 'سبع', 'ثمان', 'تسع'];
const HUNDREDS = ['', 'مئة', 'مئتان', 'ثلاثمئة', 'أربعمئة', 'خمسمئة', 'ستمئة', 'سبعمئة', 'ثمانمئة', 'تسعمئة'];

const two = (g: Gender, c: Case) => (g === 'm' ? (c === 'nom' ? 'اثنان' : 'اثنين') : c === 'nom' ? 'اثنتان' : 'اثنتين');
const tens = (t: number, c: Case) => TENS[t] + (c === 'nom' ? 'ون' : 'ين');

/** The indefinite accusative of a compound's unit, where it is written (خمساً، واحداً، ثمانياً; خمسة stays). */
function accusative(unit: string): string {
  if (unit === 'ثمان') return 'ثمانياً';
  return /[ةىي]$|^اثن/u.test(unit) ? unit : `${unit}اً`;
}

/** 1–99 with the agreement of a counted noun of gender g. */
function below100(n: number, g: Gender, c: Case): string {
  if (n === 2) return two(g, c);
  if (n <= 10) return (g === 'm' ? UNITS_M : UNITS_F)[n]!;
  if (n === 11) return g === 'm' ? 'أحد عشر' : 'إحدى عشرة';
  if (n === 12) return g === 'm' ? (c === 'nom' ? 'اثنا عشر' : 'اثني عشر') : c === 'nom' ? 'اثنتا عشرة' : 'اثنتي عشرة';
  if (n < 20) return g === 'm' ? `${UNITS_M[n - 10]} عشر` : `${UNITS_F[n - 10]} عشرة`;
  const u = n % 10;
  const t = tens(Math.floor(n / 10), c);
  if (u === 0) return t;
  // feminine 8 in a compound is the indefinite ثمانٍ (ثمان وعشرون درجة)
  const unit = u === 1 ? (g === 'm' ? 'واحد' : 'إحدى') : u === 2 ? two(g, c) : u === 8 && g === 'f' ? 'ثمان' : (g === 'm' ? UNITS_M : UNITS_F)[u]!;
  return `${c === 'acc' ? accusative(unit) : unit} و${t}`;
}

function below1000(n: number, g: Gender, c: Case, construct: boolean): string {
  const h = Math.floor(n / 100);
  const r = n % 100;
  const parts: string[] = [];
  if (h === 2) parts.push(r === 0 && construct ? (c === 'nom' ? 'مئتا' : 'مئتي') : c === 'nom' ? 'مئتان' : 'مئتين');
  else if (h) parts.push(HUNDREDS[h]!);
  if (r) parts.push(below100(r, g, c));
  return parts.join(' و');
}

interface Scale { value: number; noun: Noun }
const SCALES: Scale[] = [
  { value: 1e12, noun: { gender: 'm', sing: 'تريليون', dualNom: 'تريليونان', dualGen: 'تريليونين', plural: 'تريليونات', acc: 'تريليوناً', forms: [] } },
  { value: 1e9, noun: NOUNS.billion! },
  { value: 1e6, noun: NOUNS.million! },
  { value: 1e3, noun: NOUNS.thousand! },
];

/** k times a scale word (ألف، مليون…), with the agreement the scale noun needs. */
function scaled(k: number, s: Noun, c: Case, construct: boolean): string {
  // ألف declines: accusative ألفاً (سجلت ألفاً ومئتين), but ألفَ before its noun
  if (k === 1) return c === 'acc' && !construct ? s.acc : s.sing;
  if (k === 2) {
    const d = c === 'nom' ? s.dualNom : s.dualGen;
    return construct ? d.slice(0, -1) : d;
  }
  const words = cardinal(k, { gender: 'm', case: c, construct: true });
  const r = k % 100;
  if (r >= 3 && r <= 10) return `${words} ${s.plural}`;
  // 11–99 thousands: the tamyiz ألفاً, but before a counted noun the construct ألفَ (أربعون ألفَ ريالٍ)
  if (r >= 11) return `${words} ${construct ? s.sing : s.acc}`;
  return `${words} ${s.sing}`;
}

/**
 * Past the largest scale word (تريليون, up to 10^15 − 1) a number has no reading in words: it is
 * read digit by digit. A whole number is given as a number or as its digit string (any length).
 */
export type WholeNumber = number | string;
const MAX_WORD_DIGITS = 15;

/** The value of a whole number when words can read it, else null (read it digit by digit). */
export function wordValue(n: WholeNumber): number | null {
  const digits = typeof n === 'number' ? (Number.isSafeInteger(n) && n >= 0 ? String(n) : '') : n.replace(/^0+(?=\d)/u, '');
  if (!/^\d+$/u.test(digits) || digits.length > MAX_WORD_DIGITS) return null;
  return Number(digits);
}

/** A whole number in words; numbers of 10^15 and above (and anything not a whole number) digit by digit. */
export function cardinal(num: WholeNumber, opts: NumberOptions = {}): string {
  const g = opts.gender ?? 'm';
  const c = opts.case ?? 'nom';
  const construct = opts.construct ?? false;
  const n = wordValue(num);
  if (n === null) return digitByDigit(String(num));
  if (n === 0) return 'صفر';
  if (opts.definite) return definiteOf(cardinal(n, { ...opts, definite: false, case: c === 'acc' ? 'gen' : c }));
  const parts: string[] = [];
  let rest = n;
  for (const s of SCALES) {
    const k = Math.floor(rest / s.value);
    rest %= s.value;
    if (k) parts.push(scaled(k, s.noun, c, construct && rest === 0));
  }
  if (rest) parts.push(below1000(rest, g, c, construct));
  return parts.join(' و');
}

/** ال on each part joined by و (الثماني والأربعين، الثلاث عشرة، الثلاثة آلاف والخمسمئة). */
function definiteOf(words: string): string {
  return words
    .split(' و')
    .map((part) => part.replace(/^ثمان(?= |$)/u, 'ثماني').replace(/^/u, 'ال'))
    .join(' و');
}

const DIGITS = ['صفر', 'واحد', 'اثنان', 'ثلاثة', 'أربعة', 'خمسة', 'ستة', 'سبعة', 'ثمانية', 'تسعة'];
/** Reads a digit string one digit at a time (phone numbers, codes). */
export function digitByDigit(digits: string): string {
  return [...digits].filter((d) => d >= '0' && d <= '9').map((d) => DIGITS[Number(d)]).join(' ');
}

/**
 * A number written with digits (optional sign and decimal part) in words:
 * "سالب" for negatives, "فاصلة" before the decimals, which are read as a
 * number after one "صفر" per leading zero.
 */
export function readNumber(text: string, opts: NumberOptions = {}): string {
  const m = /^([-−])?(\d+)(?:\.(\d+))?$/u.exec(text);
  if (!m) return text;
  const [, sign, int, dec] = m;
  const intWords = cardinal(int!, dec ? { ...opts, gender: 'm', construct: false } : opts);
  let out = intWords;
  if (dec) {
    const zeros = /^0*/u.exec(dec)![0].length;
    const tail = dec.slice(zeros);
    const decWords = [...Array(zeros).fill('صفر'), ...(tail ? [cardinal(tail, { case: opts.case })] : [])];
    out += ` فاصلة ${decWords.join(' ')}`;
  }
  return sign ? `سالب ${out}` : out;
}

/**
 * A count with its noun, following the agreement rules: 1 كتاب واحد,
 * 2 كتابان, 3–10 ثلاثة كتب (plural, number of opposite gender), 11–99
 * أحد عشر كتاباً (accusative singular), hundreds and thousands مئة كتاب
 * (genitive singular, construct dual مئتا كتاب). After 100 with 1 or 2 left
 * over: ألف كتاب وكتاب / مئة كتاب وكتابان. An adjective (سعودي) may follow.
 */
export function countNoun(num: WholeNumber, nn: Noun, opts: { case?: Case; adjective?: string } = {}): string {
  const c = opts.case ?? 'nom';
  const g = nn.gender;
  const adj = opts.adjective ? adjectiveForms(opts.adjective, g) : undefined;
  const withAdj = (form: keyof AdjForms, word: string) => (adj ? `${word} ${adj[form]}` : word);
  const n = wordValue(num);
  // Digits read one by one count their noun like a label: تسعة تسعة … دولار
  if (n === null) return `${digitByDigit(String(num))} ${withAdj('sing', nn.sing)}`;
  const r = n % 100;
  // 1: the noun, then واحد agreeing with it (accusative: كتاباً واحداً)
  if (n === 1) return c === 'acc' ? `${withAdj('acc', nn.acc)} ${g === 'm' ? 'واحداً' : 'واحدة'}` : `${withAdj('sing', nn.sing)} ${g === 'm' ? 'واحد' : 'واحدة'}`;
  if (n === 2) return withAdj(c === 'nom' ? 'dualNom' : 'dualGen', c === 'nom' ? nn.dualNom : nn.dualGen);
  if (n > 100 && (r === 1 || r === 2)) {
    const head = `${cardinal(n - r, { gender: g, case: c, construct: true })} ${withAdj('sing', nn.sing)}`;
    return `${head} و${r === 1 ? withAdj('sing', nn.sing) : withAdj(c === 'nom' ? 'dualNom' : 'dualGen', c === 'nom' ? nn.dualNom : nn.dualGen)}`;
  }
  const words = cardinal(n, { gender: g, case: c, construct: true });
  if (r >= 3 && r <= 10) return `${words} ${withAdj('plural', nn.plural)}`;
  if (r >= 11) return `${words} ${withAdj('acc', nn.acc)}`;
  return `${words} ${withAdj('sing', nn.sing)}`;
}

interface AdjForms { sing: string; dualNom: string; dualGen: string; plural: string; acc: string }
/** Forms of a relative adjective (سعودي) agreeing with a counted noun of gender g. */
function adjectiveForms(stem: string, g: Gender): AdjForms {
  if (g === 'f') return { sing: `${stem}ة`, dualNom: `${stem}تان`, dualGen: `${stem}تين`, plural: `${stem}ة`, acc: `${stem}ة` };
  return { sing: stem, dualNom: `${stem}ان`, dualGen: `${stem}ين`, plural: `${stem}ة`, acc: `${stem}اً` };
}

const ORD_M = ['', 'الأول', 'الثاني', 'الثالث', 'الرابع', 'الخامس', 'السادس', 'السابع', 'الثامن', 'التاسع', 'العاشر'];
const ORD_F = ['', 'الأولى', 'الثانية', 'الثالثة', 'الرابعة', 'الخامسة', 'السادسة', 'السابعة', 'الثامنة', 'التاسعة', 'العاشرة'];

/** An ordinal adjective (الخامس عشر، الحادية والعشرون، العاشر بعد المئة). */
export function ordinal(num: WholeNumber, opts: { gender?: Gender; case?: Case } = {}): string {
  const g = opts.gender ?? 'm';
  const c = opts.case ?? 'nom';
  const ord = g === 'm' ? ORD_M : ORD_F;
  const n = wordValue(num);
  if (n === null) return `رقم ${digitByDigit(String(num))}`;
  if (n <= 0) return cardinal(Math.max(0, n), { gender: g, case: c });
  if (n <= 10) return ord[n]!;
  if (n < 20) {
    const u = n === 11 ? (g === 'm' ? 'الحادي' : 'الحادية') : ord[n - 10]!;
    return `${u} ${g === 'm' ? 'عشر' : 'عشرة'}`;
  }
  if (n < 100) {
    const u = n % 10;
    const t = `ال${tens(Math.floor(n / 10), c)}`;
    if (!u) return t;
    const unit = u === 1 ? (g === 'm' ? 'الحادي' : 'الحادية') : ord[u]!;
    return `${unit} و${t}`;
  }
  const r = n % 100;
  const base = `ال${cardinal(n - r, { case: c })}`;
  const head = r === 1 ? (g === 'm' ? 'الحادي' : 'الحادية') : r ? ordinal(r, opts) : '';
  return r ? `${head} بعد ${base}` : base;
}
