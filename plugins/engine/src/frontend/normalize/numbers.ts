/**
 * The numbers left after dates, times, phones and money: ordinals marked in
 * the text (الـ5، القرن الـ21), percentages, counts followed by a known noun
 * (with agreement: 3 ريال → ثلاثة ريالات), decimals, negatives and plain
 * cardinals, with the case given by the word before (see context.ts) or a
 * preposition glued to the digits (ب٥). A number after "و" takes the case of
 * the number before it (بين 20 و30 → بين عشرين وثلاثين).
 */
import { cardinal, countNoun, ordinal, readNumber } from './cardinals.js';
import { caseAt, numberCaseAt } from './context.js';
import { adjectiveStem, BY_NOUN, readMoney } from './currency.js';
import { analyzeNoun, accusativeOf, dualOf, looksCounted, nounGender, pluralOf } from './morphology.js';
import { NOUNS, UNIT_ABBREVIATIONS, nounIdOf, type Case, type Gender, type Noun } from './nouns.js';

const NUMBER = /(?<![\p{L}\p{N}.,])([وف]?[بل]?ال|[وف]?[بل]?)([-−](?=\d))?(\d+(?:\.\d+)?)(?![\d])(\s?[%‰])?(?:(\s?°|\s[\p{L}\u064b-\u0652]+(?![\p{N}]))(\s\p{L}+(?![\p{N}]))?)?/gu;

/** Gender of the noun an ordinal follows (القرن الـ21 / المرة الـ3). */
function genderBefore(text: string, index: number): Gender {
  const m = /(\p{L}+)\s*$/u.exec(text.slice(Math.max(0, index - 30), index));
  return m ? nounGender(m[1]!) : 'm';
}

/**
 * Nouns after which a bare number is an ordinal (القرن 21 → القرن الحادي والعشرون): centuries,
 * floors, ranks, rounds, editions, articles of a law, anniversaries… Feminine by ة/ى or listed.
 */
const ORDINAL_HEADS = new Set([
  'قرن', 'طابق', 'دور', 'مركز', 'مرتبة', 'دورة', 'نسخة', 'طبعة', 'موسم', 'جولة', 'أسبوع', 'فصل', 'جزء', 'حلقة', 'مادة', 'بند', 'فقرة',
  'صف', 'ذكرى', 'مؤتمر', 'قمة', 'مهرجان', 'حرب', 'ربع', 'مرحلة', 'شوط', 'دقيقة', 'عيد', 'الألفية', 'ألفية', 'بطولة', 'مباراة', 'محطة', 'بوابة',
]);
const FEMININE_HEADS = new Set(['حرب']);
/** A preposition glued to the head (بالذكرى، للمرة) puts it, and its ordinal, in the genitive. */
const GLUED_PREPOSITION = /^[وف]?(?:بال|لل|كال)/u;

/** The ordinal's head noun before a bare number (one definite adjective may follow it: الحرب العالمية 2). */
function ordinalHead(text: string, index: number): { gender: Gender; index: number; glued: boolean } | null {
  const before = text.slice(Math.max(0, index - 40), index);
  const words = [...before.matchAll(/[\p{L}\p{M}]+/gu)].slice(-2);
  if (!/^\s+$/u.test(before.slice(words.at(-1) ? words.at(-1)!.index! + words.at(-1)![0].length : 0))) return null;
  const noun = (w: string) => /^[وف]?(?:ال|بال|لل|كال)(\p{L}+)$/u.exec(w)?.[1];
  const at = (k: number) => index - before.length + words[k]!.index!;
  const last = words.at(-1);
  if (last && ORDINAL_HEADS.has(noun(last[0]) ?? '')) {
    const n = noun(last[0])!;
    return { gender: FEMININE_HEADS.has(n) || /[ةى]$/u.test(n) ? 'f' : 'm', index: at(words.length - 1), glued: GLUED_PREPOSITION.test(last[0]) };
  }
  // head + one definite adjective (الحرب العالمية 2), with nothing but a space between them
  if (words.length === 2 && /^ال/u.test(last![0].replace(/^[وف]/u, '')) && ORDINAL_HEADS.has(noun(words[0]![0]) ?? '') && /^\s+$/u.test(before.slice(words[0]!.index! + words[0]![0].length, last!.index))) {
    const n = noun(words[0]![0])!;
    return { gender: FEMININE_HEADS.has(n) || /[ةى]$/u.test(last![0]) ? 'f' : 'm', index: at(0), glued: GLUED_PREPOSITION.test(words[0]![0]) };
  }
  return null;
}

/** Words after a number that are not its counted noun. */
const NOT_COUNTED = /^(?:[وف]?(?:من|في|على|إلى|الى|عن|مع|أو|او|ثم|حتى|بين|منذ|لدى|عند|بعد|قبل|فقط|تقريبا|تقريباً|أيضا|أيضاً|جدا|معا|كل|هو|هي|هم|قد|لا|لم|لن|ما|زائد|ناقص|مقابل)|و|ال\p{L}+|و(?:نصف|ربع|ثلث|ثلثا|ثلثان|ثلثي|ثلثين|نصفاً|ربعاً|ثلثاً)|بالمئة|بالألف|بالمائة)$/u;

export function normalizeNumbers(text: string): string {
  // a plus sign before a number (not a phone's, read before): زائد
  text = text.replace(/(?<![\p{L}\p{N}+])\+\s?(?=\d)/gu, 'زائد ');
  // digits and Latin letters glued together are read apart (5G، MP3)
  text = text.replace(/(?<=\d)(?=[A-Za-z])|(?<=[A-Za-z])(?=\d)/gu, ' ');
  text = readNumbersInContext(text);
  // Digits no rule took (glued to letters: MP3، A380، كتاب5; version numbers 1.2.3) are read as numbers all the same.
  return text.replace(/\d+/gu, (d, off: number, s: string) => {
    const before = off > 0 && /[\p{L}\p{M}]/u.test(s[off - 1]!) ? ' ' : '';
    const after = /^[\p{L}\p{M}]/u.test(s.slice(off + d.length)) ? ' ' : '';
    return before + cardinal(d) + after;
  });
}

function readNumbersInContext(text: string): string {
  return text.replace(NUMBER, (all, prefix: string, sign: string | undefined, num: string, pct: string | undefined, w1: string | undefined, w2: string | undefined, off: number, s: string) => {
    const out = readOne(all, prefix, sign, num, pct, w1, w2, off, s);
    // واحد is an adjective of the whole phrase: after the word that describes or completes the noun (ملعقة كبيرة واحدة، كوب ماء واحد)
    const one = num === '1' && !sign && !pct && w2 && /^\s[\u0621-\u064a]{2,}$/u.test(w2) && isCountedNoun(w2.trim()) && !/^\s[وف]/u.test(w2) ? / (واحد|واحدة|واحداً)(\s[\u0621-\u064a]{2,})$/u.exec(out) : null;
    return one && one[2] === w2 ? `${out.slice(0, one.index)}${w2} ${one[1]}` : out;
  });
}

function readOne(all: string, prefix: string, sign: string | undefined, num: string, pct: string | undefined, w1: string | undefined, w2: string | undefined, off: number, s: string): string {
  {
    const value = (sign ? '-' : '') + num;
    const after = `${w1 ?? ''}${w2 ?? ''}`;
    if (prefix.endsWith('ال')) {
      if (num.includes('.') || sign) return all;
      const glued = prefix.slice(0, -2);
      // before its counted noun, a definite cardinal in agreement (خلال الـ48 ساعة → الثماني والأربعين ساعة)
      if (w1 && isCountedNoun(w1.trim())) {
        const c = glued.replace(/^[وف]/u, '') ? 'gen' : caseAt(s, off);
        const n = analyzeNoun(w1.trim());
        const r = Number(num) % 100;
        const noun = r >= 11 && n.gender === 'm' && !n.plural ? ` ${accusativeOf(n.bare)}` : w1;
        return `${glued}${cardinal(num, { gender: n.gender, case: c, construct: true, definite: true })}${noun}${w2 ?? ''}`;
      }
      const prev = /(\p{L}+)\s*$/u.exec(s.slice(0, off));
      const c = prev ? caseAt(s, off - prev[0].length) : 'nom';
      return glued + ordinal(num, { gender: genderBefore(s, off), case: glued.replace(/^[وف]/u, '') ? 'gen' : c }).replace(/^ال/u, '') .replace(/^/u, 'ال') + after;
    }
    // a signed or decimal number is no year: after العام/السنة it is not in their construct (منذ بداية العام -2,4%)
    const c = (sign || num.includes('.')) && YEAR_BEFORE.test(s.slice(Math.max(0, off - 12), off)) ? 'nom' : numberCaseAt(s, off + prefix.length, prefix);
    // after an ordinal's head noun, unless a counted noun follows (a year after it is no count: الحرب العالمية 2 عام 1945)
    const counted = w1 && (nounIdOf(w1.trim()) ?? UNIT_ABBREVIATIONS[w1.trim()] ?? (/^\s[\u0621-\u064a]{2,}$/u.test(w1) && isCountedNoun(w1.trim()) && looksCounted(w1.trim()))) && !/^\s*\d/u.test(s.slice(off + all.length - (w2?.length ?? 0)));
    // (nor is the first number of a range of counted nouns: يستمر المؤتمر 2-4 أيام)
    const head = !prefix && !sign && !num.includes('.') && !pct && !counted && !rangeNoun(w1, s.slice(off + all.length)) ? ordinalHead(s, off) : null;
    if (head) return ordinal(num, { gender: head.gender, case: head.glued ? 'gen' : caseAt(s, head.index) }) + after;
    if (pct) return `${prefix}${readNumber(value, { case: c })} ${pct.includes('‰') ? 'بالألف' : 'بالمئة'}${after}`;
    if (w1) {
      const word = w1.trim().replace(/[\u064c-\u0652]/gu, '');
      const id = nounIdOf(word) ?? UNIT_ABBREVIATIONS[word];
      if (id) {
        const cur = BY_NOUN[id];
        const stem = cur && w2 ? adjectiveStem(w2.trim()) : undefined;
        const rest = stem ? '' : (w2 ?? '');
        if (cur) return prefix + readMoney(value, { ...cur, adjective: stem }, c) + rest;
        if (num.includes('.')) return `${prefix}${readNumber(value, { case: c })} ${NOUNS[id]!.sing}${rest}`;
        const scale = id === 'thousand' || id === 'million' || id === 'billion';
        const next = w2?.trim();
        if (scale && next && !adjectiveStem(next) && !/^(?:و|أو|من|في)$/u.test(next)) {
          // the scale word governs the next noun: عشرين ألف زائر، مليونا شخص
          const words = countNoun(num, NOUNS[id]!, { case: c });
          const construct = Number(num) === 2 ? words.slice(0, -1) : words.replace(/اً$/u, '');
          return prefix + (sign ? 'سالب ' : '') + construct + rest;
        }
        const counted = countNoun(num, NOUNS[id]!, { case: c });
        // a dual in construct with the noun after it loses its ن (يومي عمل، ساعتي انتظار); an agreeing dual adjective does not
        const dualHead = Number(num) === 2 && !sign && !!next && /^[\u0621-\u064a]{3,}$/u.test(next) && !/(?:ان|ين|ة|ا|ى)$/u.test(next) && isCountedNoun(next) && !ADVERB.test(next);
        return prefix + (sign ? 'سالب ' : '') + (dualHead ? counted.replace(/ن$/u, '') : counted) + rest;
      }
    }
    // a noun right after the number is its counted noun, in construct (مئتا إصابة); a particle is not
    const construct = !!w1 && !num.includes('.') && !sign && isCountedNoun(w1.trim());
    if (construct && /^\s[\u0621-\u0652]+$/u.test(w1!) && !YEAR_BEFORE.test(s.slice(Math.max(0, off - 12), off))) {
      // a noun after the counted noun puts it in construct, with no tanween (خمسة وعشرون رئيس دولة)
      const inConstruct = !!w2 && /^\s[\u0621-\u064a]{2,}$/u.test(w2) && !/ا$/u.test(w2) && !/ا$/u.test(w1!) && isCountedNoun(w2.trim());
      return prefix + countUnknown(num, w1!.trim(), c, inConstruct) + (w2 ?? '');
    }
    const ranged = construct || sign || num.includes('.') || pct ? undefined : rangeNoun(w1, s.slice(off + all.length));
    const g = construct ? nounGender(w1!.trim()) : ranged ? nounGender(ranged) : 'm';
    const asNoun = ranged && (num === '1' || num === '2') ? rangeCountOf(num, ranged, c) : undefined;
    if (asNoun) return prefix + asNoun + (w1 ?? '') + (w2 ?? '');
    const r = Number(num.replace(/\..*/u, '').slice(-2));
    // 11–99: the tamyiz is accusative; write the tanween an undiacritized ـا leaves out (فصلا → فصلاً)
    const w1out = w1 && !num.includes('.') && r >= 11 && /^\s\p{L}{2,}[^اى\s]ا$/u.test(w1) && !/^\s(?:أيضا|جدا|تقريبا|فقط|معا)$/u.test(w1) ? `${w1}\u064b` : (w1 ?? '');
    return prefix + readNumber(value, { case: c, gender: g, construct }) + w1out + (w2 ?? '');
  }
}

/**
 * The first number of a range takes the gender of the noun counted after the second
 * (من 3 إلى 5 ساعات → من ثلاث إلى خمس ساعات، بين 3 و4 سيارات، 7 أو 8 رحلات).
 */
function rangeNoun(w1: string | undefined, rest: string): string | undefined {
  const joined = /^\s?(?:إلى|الى|حتى|أو|او)$/u.test(w1 ?? '') ? rest : !w1 && /^\s+و\s?(?=\d)/u.test(rest) ? rest.replace(/^\s+و/u, '') : null;
  const m = joined === null ? null : /^\s*\d+(?:\.\d+)?\s+([\u0621-\u0652]{2,})/u.exec(joined);
  return m && isCountedNoun(m[1]!) ? m[1]! : undefined;
}

/** A range's first number of one or two is the noun itself, singular or dual (يومين إلى أربعة أيام، ساعة إلى ساعتين). */
function rangeCountOf(num: string, noun: string, c: Case): string | undefined {
  const a = analyzeNoun(noun);
  const known = NOUNS[nounIdOf(a.singular) ?? ''];
  if (num === '1') return known ? (c === 'acc' ? known.acc : known.sing) : c === 'acc' && a.gender === 'm' ? accusativeOf(a.singular) : a.singular;
  return (known ? (c === 'nom' ? known.dualNom : known.dualGen) : dualOf(a.singular, c !== 'nom')) || undefined;
}

/** Adverbs in ـيًّا (سنويا، عالميا) and the like follow numbers without being counted. */
const ADVERB = /^\p{L}{3,}يا[\u064b]?$/u;
const PLURALS_IN_YA = /^(?:ضحايا|هدايا|قضايا|زوايا|مزايا|بقايا|وصايا|سرايا|خطايا)$/u;
/** A year is no count: عام 2024 شهد… */
/** Adverbs of time and manner that follow a number without being counted. */
const ADVERBS = new Set(['أمس', 'غدا', 'سابقا', 'لاحقا', 'مجددا', 'مجانا', 'مساء', 'صباحا', 'ظهرا', 'ليلا', 'فقط', 'تقريبا', 'أيضا', 'جدا', 'معا', 'حين', 'حاليا', 'عاما', 'إضافيا']);
const YEAR_BEFORE = /(?:^|\s)[وفبل]?(?:ال)?(?:عام|سنة|العام)\s*$/u;

function isCountedNoun(word: string): boolean {
  if (NOT_COUNTED.test(word) || /^[وف]?(?:لل|[بك]?ال)\p{L}/u.test(word) || ADVERBS.has(word.replace(/[\u064b-\u0652]/gu, ''))) return false;
  return !ADVERB.test(word) || PLURALS_IN_YA.test(word);
}

/**
 * A count of a noun the tables do not list, with the agreement its form tells (morphology.ts): the
 * singular after 1, 2 (dual), 11–99 (accusative) and 100+ (genitive); the plural after 3–10, the
 * plural as written or, when the text has the singular, the broken plural the table knows or ـات.
 * What cannot be formed is left as written.
 */
function countUnknown(num: string, word: string, c: Case, inConstruct = false): string {
  const a = analyzeNoun(word);
  const n = Number(num);
  const r = n % 100;
  // a sound masculine plural has no singular to trust: keep the word after a number of 3–10 or 100+
  const soundMasc = a.plural && !word.endsWith('ات') && a.singular === a.bare.slice(0, -2);
  const sing = soundMasc ? null : a.singular;
  const plural = a.plural ? word : sing ? pluralOf(sing) : undefined;
  const knownNoun = !!sing && (a.plural || !!pluralOf(sing) || /^م\p{L}{3,}$/u.test(sing) || word.endsWith('ا'));
  const acc = sing && a.gender === 'm' && knownNoun && !inConstruct ? accusativeOf(sing) : (sing ?? word);
  const nn: Noun = {
    gender: a.gender,
    sing: sing ?? word,
    dualNom: (sing && dualOf(sing, false)) ?? '',
    dualGen: (sing && dualOf(sing, true)) ?? '',
    plural: plural ?? word,
    acc,
    forms: [],
  };
  if (!Number.isSafeInteger(n) || num.length > 15) return `${readNumber(num)} ${word}`;
  if ((n === 2 || (n > 100 && r === 2)) && (!nn.dualNom || a.plural)) return `${readNumber(num, { case: c, gender: a.gender, construct: true })} ${word}`;
  if ((n === 1 || n === 2 || r === 1 || r === 2 || r === 0 || r >= 11) && a.plural && !sing) return `${readNumber(num, { case: c, gender: a.gender, construct: true })} ${word}`;
  return countNoun(num, nn, { case: c });
}
