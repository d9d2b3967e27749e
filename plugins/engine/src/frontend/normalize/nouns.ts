/**
 * Counted nouns the normalizer knows how to inflect after a number: gender and
 * the forms the agreement rules need (singular, dual nominative/genitive, the
 * plural used after 3–10, the accusative singular used after 11–99).
 * Accusative tanween is written as ALIF + FATHATAN (ريالاً) because it changes
 * the pronunciation; every other case ending is left undiacritized.
 */
export type Gender = 'm' | 'f';
/** 'acc' reads like 'gen' except the tanween of a compound's unit (خمساً وأربعين). */
export type Case = 'nom' | 'gen' | 'acc';

export interface Noun {
  gender: Gender;
  sing: string;
  dualNom: string;
  dualGen: string;
  plural: string;
  acc: string;
  /** Spellings that are recognized in the input after a number. */
  forms: string[];
}

const TANWEEN_FATH = '\u064b';

/** Builds a noun's forms from its singular and broken/sound plural. */
export function noun(gender: Gender, sing: string, plural: string, extra: string[] = []): Noun {
  const fem = sing.endsWith('ة');
  const stem = fem ? sing.slice(0, -1) + 'ت' : sing;
  const noAlif = fem || /[اىوء]$/u.test(sing);
  const acc = noAlif ? sing : `${sing}ا${TANWEEN_FATH}`;
  const dualNom = `${stem}ان`;
  const dualGen = `${stem}ين`;
  const forms = [sing, dualNom, dualGen, plural, acc, `${sing}ا`, `${sing}${TANWEEN_FATH}ا`, ...extra];
  return { gender, sing, dualNom, dualGen, plural, acc, forms: [...new Set(forms)] };
}

/** The nouns whose agreement the normalizer handles after digits. */
export const NOUNS: Record<string, Noun> = {
  // time
  second: noun('f', 'ثانية', 'ثوان', ['ثواني', 'ثوانٍ']),
  minute: noun('f', 'دقيقة', 'دقائق'),
  hour: noun('f', 'ساعة', 'ساعات'),
  day: noun('m', 'يوم', 'أيام'),
  week: noun('m', 'أسبوع', 'أسابيع'),
  month: noun('m', 'شهر', 'أشهر', ['شهور']),
  year: noun('f', 'سنة', 'سنوات', ['سنين']),
  yearM: noun('m', 'عام', 'أعوام'),
  // scales written as words after digits (5 ملايين)
  thousand: noun('m', 'ألف', 'آلاف'),
  million: noun('m', 'مليون', 'ملايين'),
  billion: noun('m', 'مليار', 'مليارات'),
  // common counted nouns
  time: noun('f', 'مرة', 'مرات'),
  night: noun('f', 'ليلة', 'ليال', ['ليالي', 'ليالٍ']),
  person: noun('m', 'شخص', 'أشخاص'),
  book: noun('m', 'كتاب', 'كتب'),
  student: noun('m', 'طالب', 'طلاب'),
  page: noun('f', 'صفحة', 'صفحات'),
  word: noun('f', 'كلمة', 'كلمات'),
  car: noun('f', 'سيارة', 'سيارات'),
  country: noun('f', 'دولة', 'دول'),
  city: noun('f', 'مدينة', 'مدن'),
  company: noun('f', 'شركة', 'شركات'),
  degree: noun('f', 'درجة', 'درجات'),
  meter: noun('m', 'متر', 'أمتار'),
  km: noun('m', 'كيلومتر', 'كيلومترات', ['كيلومترا']),
  kg: noun('m', 'كيلوغرام', 'كيلوغرامات', ['كيلوجرام', 'كيلوجرامات']),
  cm: noun('m', 'سنتيمتر', 'سنتيمترات'),
  mm: noun('m', 'مليمتر', 'مليمترات'),
  gram: noun('m', 'غرام', 'غرامات', ['جرام', 'جرامات']),
  liter: noun('m', 'لتر', 'لترات'),
  ml: noun('m', 'مليلتر', 'مليلترات', ['ملليلتر', 'مللتر']),
  mg: noun('m', 'مليغرام', 'مليغرامات', ['مليجرام', 'ملليغرام', 'ملليجرام']),
  ton: noun('m', 'طن', 'أطنان'),
  // currencies and their sub-units
  riyal: noun('m', 'ريال', 'ريالات'),
  dirham: noun('m', 'درهم', 'دراهم'),
  dinar: noun('m', 'دينار', 'دنانير'),
  pound: noun('m', 'جنيه', 'جنيهات'),
  dollar: noun('m', 'دولار', 'دولارات'),
  euro: { gender: 'm', sing: 'يورو', dualNom: 'يوروان', dualGen: 'يوروين', plural: 'يورو', acc: 'يورو', forms: ['يورو', 'يوروان', 'يوروين'] },
  lira: noun('f', 'ليرة', 'ليرات'),
  yen: noun('m', 'ين', 'ينات'),
  cent: noun('m', 'سنت', 'سنتات'),
  halala: noun('f', 'هللة', 'هللات'),
  fils: noun('m', 'فلس', 'فلوس'),
  piastre: noun('m', 'قرش', 'قروش'),
  baisa: noun('f', 'بيسة', 'بيسات'),
};

/** Unit abbreviations read as their noun after a number (5 كم). */
export const UNIT_ABBREVIATIONS: Record<string, string> = {
  'كم': 'km', 'كلم': 'km', 'km': 'km', 'كغ': 'kg', 'كجم': 'kg', 'kg': 'kg', 'سم': 'cm', 'cm': 'cm', 'مم': 'mm', 'mm': 'mm',
  'غ': 'gram', 'جم': 'gram', '°': 'degree', 'دقيقة': 'minute',
};

const BY_FORM = new Map<string, string>();
for (const [id, n] of Object.entries(NOUNS)) for (const f of n.forms) if (!BY_FORM.has(f)) BY_FORM.set(f, id);

/** The noun id for a word as written after a number, or undefined. */
export function nounIdOf(word: string): string | undefined {
  return BY_FORM.get(word);
}
