/**
 * The case a number takes from the words before it, by simple rules:
 * genitive after a preposition (في، من، إلى، على، عن، حتى، منذ…), after a
 * noun that governs it in construct (عام، سنة، نسبة، مبلغ، خصم، غضون…), or when a
 * preposition is attached to the digits (ب٥، ل٣); accusative as the object of
 * a transitive verb (يستغرق الإجراء 45 دقيقة، سجلت البلاد 200 إصابة: the verb,
 * then its subject, a definite noun or idafa, or no subject at all); nominative otherwise.
 */
import type { Case } from './nouns.js';

const GENITIVE_BEFORE = new Set([
  'في', 'من', 'إلى', 'الى', 'على', 'عن', 'حتى', 'عند', 'لدى', 'فوق', 'تحت', 'دون', 'حول', 'سوى', 'غير', 'منذ', 'مذ', 'مع', 'بعد', 'قبل', 'خلال', 'بين', 'لمدة', 'مدة', 'طوال',
  'زائد', 'ناقص', 'مقابل', 'حوالي', 'حوالى', 'بحوالي', 'نحو', 'بنحو', 'قرابة', 'بقرابة', 'زهاء', 'أكثر', 'أقل', 'غضون', 'مدار', 'ظرف', 'أول', 'آخر',
  'عام', 'العام', 'لعام', 'بعام', 'سنة', 'السنة', 'لسنة', 'بسنة', 'نسبة', 'بنسبة', 'تاريخ', 'بتاريخ', 'مبلغ', 'بمبلغ',
  'سباق', 'بسباق', 'لسباق', 'مقاس', 'بمقاس', 'نتيجة', 'بنتيجة', 'زمن', 'بزمن', 'حرارة', 'بحرارة', 'قيمة', 'بقيمة', 'سعر', 'بسعر', 'معدل', 'بمعدل', 'رقم', 'برقم', 'الرقم', 'عمر', 'بعمر', 'ارتفاع', 'بارتفاع', 'عمق', 'بعمق', 'مسافة', 'بمسافة',
  'خصم', 'بخصم', 'تخفيض', 'بتخفيض', 'تخفيضات', 'زيادة', 'بزيادة', 'نمو', 'بنمو', 'انخفاض', 'بانخفاض', 'تراجع', 'بتراجع', 'مساحة', 'بمساحة', 'طول', 'بطول',
  'عرض', 'بعرض', 'وزن', 'بوزن', 'حجم', 'بحجم', 'سرعة', 'بسرعة', 'تكلفة', 'بتكلفة', 'كلفة', 'بكلفة', 'إجمالي', 'بإجمالي', 'مجموع', 'بمجموع',
]);

/**
 * Transitivity. By the verb's form where the form decides it (Ryding ch. 18–19; Wright I §§ 41–62):
 * Form X (استفعل، يستفعل) and Form IV (أفعل) are transitive, Form VII (انفعل) is not; for Form I
 * and Form VIII, which go both ways, by the lexicon of transitive roots below (past stem: present
 * stem; third person; و/ف may precede). A 3rd-person verb that is neither, directly before a
 * number, has the number as its subject (وصل 20 شخصاً، قُتل 20 شخصاً).
 */
const TRANSITIVE = [
  'بلغ:بلغ', 'تجاوز:تجاوز', 'تخطى:تخطى', 'سجل:سجل', 'حقق:حقق', 'خسر:خسر', 'ربح:ربح', 'كسب:كسب', 'قطع:قطع', 'دفع:دفع',
  'جمع:جمع', 'ضم:ضم', 'شمل:شمل', 'فقد:فقد', 'باع:بيع', 'اشترى:شتري', 'وزع:وزع', 'قتل:قتل', 'تلقى:تلقى',
  'خصص:خصص', 'رصد:رصد', 'صدر:صدر', 'وفر:وفر', 'جذب:جذب',
  'قرأ:قرأ', 'كتب:كتب', 'أكل:أكل', 'شرب:شرب', 'نشر:نشر', 'احتوى:حتوي', 'تضمن:تضمن', 'ضاعف:ضاعف',
  'تسلم:تسلم', 'عالج:عالج', 'نفذ:نفذ', 'بنى:بني', 'افتتح:فتتح', 'حصد:حصد', 'طلب:طلب', 'حجز:حجز',
  'ملك:ملك', 'أخذ:أخذ', 'ترك:ترك', 'حمل:حمل', 'نقل:نقل', 'صنع:صنع', 'فتح:فتح', 'غلب:غلب', 'هزم:هزم', 'عبر:عبر', 'مشى:مشي',
  'اختار:ختار', 'انتظر:نتظر', 'احتل:حتل', 'اعتقل:عتقل', 'اكتشف:كتشف', 'امتلك:متلك', 'احتاج:حتاج', 'اجتاز:جتاز', 'التقط:لتقط', 'اقترح:قترح',
  'قدم:قدم', 'درس:درس', 'عين:عين', 'وظف:وظف', 'شغل:شغل', 'حول:حول', 'سدد:سدد', 'خفض:خفض', 'رفع:رفع', 'سحب:سحب', 'أودع:ودع', 'حفظ:حفظ',
  'أنفق:نفق', 'أصاب:صيب', 'أضاف:ضيف', 'أنتج:نتج', 'أطلق:طلق', 'أنجز:نجز', 'أحرز:حرز', 'أصدر:صدر', 'استقبل:ستقبل', 'استغرق:ستغرق',
  'استورد:ستورد', 'استهلك:ستهلك', 'استخدم:ستخدم', 'استضاف:ستضيف', 'استلم:ستلم',
  'تناول:تناول', 'تابع:تابع', 'شاهد:شاهد', 'قضى:قضي', 'أمضى:مضي', 'صرف:صرف', 'منح:منح', 'أعطى:عطي', 'ألقى:لقي', 'أجرى:جري',
];
const TRANSITIVE_FORMS = new Set<string>();
for (const entry of TRANSITIVE) {
  const [past, present] = entry.split(':') as [string, string];
  TRANSITIVE_FORMS.add(past);
  TRANSITIVE_FORMS.add(past.endsWith('ى') ? `${past.slice(0, -1)}ت` : `${past}ت`);
  TRANSITIVE_FORMS.add(`ي${present}`);
  TRANSITIVE_FORMS.add(`ت${present}`);
}
/** Words of a verb's shape that are not verbs (or not here): prepositions with a pronoun, adverbs, nouns. */
const NOT_VERBS = new Set([
  'لدينا', 'عندنا', 'لنا', 'معنا', 'علينا', 'إلينا', 'الينا', 'فينا', 'بنا', 'منا', 'إننا', 'أننا', 'اننا', 'لكننا', 'كلنا', 'بعضنا', 'جميعنا', 'هنا', 'ربنا', 'لديكم', 'عندكم',
  'أكثر', 'أقل', 'أول', 'أكبر', 'أصغر', 'أعلى', 'أدنى', 'أحد', 'أمس', 'أيضا', 'أخرى', 'أسبوع', 'أعوام', 'أيام', 'أشهر', 'أرقام',
  'وقت', 'بيت', 'صوت', 'بنت', 'أخت', 'تحت', 'ذات', 'موت', 'زيت', 'سبت', 'ثبت',
  'نظام', 'نموذج', 'نطاق', 'نشاط', 'نادي', 'نجوم', 'نساء', 'نقاط', 'نحو', 'يوم', 'يوما', 'يمين', 'يسار', 'تاريخ', 'تقرير', 'تحديد', 'تسجيل', 'تقريبا', 'تماما', 'تجاه',
]);
/**
 * Imperatives of instructions (recipes, payments, directions): the addressee is their subject, so
 * a number after them is their object (أضف كوبين، ادفع خمسين ريالاً، خذ قرصين).
 */
const IMPERATIVES = new Set(`
أضف أضيفي أضيفوا ضع ضعي ضعوا اخلط اخلطي اخلطوا خذ خذي خذوا اطبخ اطبخي اترك اتركي اتركوا اسكب اسكبي اغسل اغسلي اخفق اخفقي اعجن اعجني
سخن سخني ذوب ذوبي انقع انقعي اطحن اطحني امزج امزجي رش رشي قلب قلبي اغل اغلي اشو اقل اقلي ادفع ادفعي ادفعوا حول حولي أرسل أرسلي أرسلوا
أدخل أدخلي أدخلوا اشتر اشتري احجز احجزي احجزوا اختر اختاري اطلب اطلبي اطلبوا استخدم استخدمي استعمل استعملي زد زيدي اقرأ اقرئي اكتب اكتبي
امش امشي اركض اشرب اشربي تناول تناولي املأ املئي اقطع اقطعي احسب احسبي اجمع اجمعي ابعد ابعدي انتظر انتظري اضبط اضبطي برد بردي
`.split(/\s+/u).filter(Boolean));
const bareVerb = (w: string) => w.replace(/^[وف](?=\p{L}{3})/u, '');

interface Verb {
  /** The subject is in the verb (زرنا، دفعوا، نقدم، أقرأ): what follows is no subject. */
  ownSubject: boolean;
  transitive: boolean;
}

/** Whether `word` is a verb, by the lexicon or by its shape, and what it says about what follows. */
function verbOf(word: string): Verb | null {
  // a verb the lexicon knows as written (فقدت، وصلت), else without a leading و/ف
  const whole = TRANSITIVE_FORMS.has(word) || NOT_VERBS.has(word);
  if (IMPERATIVES.has(word) || IMPERATIVES.has(bareVerb(word))) return { ownSubject: true, transitive: true };
  const w = whole ? word : bareVerb(word);
  const listed = TRANSITIVE_FORMS.has(w);
  // a listed verb in ـى (مشى، تلقى، احتوى) is a verb for all its shape
  if (NOT_VERBS.has(w) || (!listed && /^ال|[ةى]$|ات$|ية$/u.test(w))) return null;
  // past with a subject suffix: ـنا (we), ـتم/ـتن (you), ـوا (they)
  const past = /^(\p{L}{2,6}?)(?:نا|تم|تن|وا)$/u.exec(w);
  if (past && !/انا$/u.test(w)) return { ownSubject: true, transitive: listed || TRANSITIVE_FORMS.has(past[1]!) };
  // imperfect, first person (نقدم، سنوفر، أقرأ)
  if (/^س?ن\p{L}{3,6}$/u.test(w) && !/ين$|ون$/u.test(w)) return { ownSubject: true, transitive: true };
  if (listed) return { ownSubject: false, transitive: true };
  // Form X, past and present: transitive
  if (/^(?:است|[يتن]ست)\p{L}{3}$/u.test(w)) return { ownSubject: false, transitive: true };
  // Form VII: intransitive
  if (/^(?:ان|[يت]ن)\p{L}{3}$/u.test(w) && w.length === 5) return { ownSubject: false, transitive: false };
  // Form IV past (أنتج، أطلق، أصدر): transitive
  if (/^أ\p{L}{3}$/u.test(w)) return { ownSubject: false, transitive: true };
  // any other imperfect of the third person, and Form V/VI/VIII past shapes: a verb, transitivity unknown
  if (/^س?[يت]\p{L}{3,5}(?:ون|ان)?$/u.test(w) && !/^ت\p{L}{2}ي\p{L}$/u.test(w)) return { ownSubject: false, transitive: false };
  if (/^ا\p{L}ت\p{L}{2}$|^ت\p{L}ا\p{L}{2}$/u.test(w)) return { ownSubject: false, transitive: false };
  return null;
}
/** Verbs that count their agents after a definite object (زار، حضر، شارك، تابع…), third person. */
const AGENT_VERBS = /^(?:[يت]?(?:زار|زور|حضر|شارك|شاهد|تابع|دخل|غادر|ارتاد|رتاد|قصد|عبر)(?:ت|ون|ان)?)$/u;
/** A word that can close a verb's subject: definite (ال…) or with a pronoun suffix (طوله، عددهم). */
const SUBJECT_END = /^(?:[وف]?ال\p{L}{2,}|\p{L}{2,}(?:ه|ها|هم|هن|هما))$/u;
/** A preposition (alone or glued to a definite noun) opening a fronted phrase: يوجد في المدينة 30 مدرسة. */
const PREPOSITION = /^(?:[وف]?(?:في|من|إلى|الى|على|عن|مع|لدى|عند|خلال|بين)|[وف]?(?:بال|لل|كال)\p{L}+)$/u;

/** Indefinite verbal nouns of the derived forms (تسجيل، إنتاج، استخدام، انتخاب، اختيار): only those head a construct. */
const VERBAL_NOUN = /^[وف]?(?:ت\p{L}\p{L}ي\p{L}|إ\p{L}\p{L}ا\p{L}|است\p{L}\p{L}ا\p{L}|ان\p{L}\p{L}ا\p{L}|ا\p{L}ت\p{L}ا\p{L})$/u;

/** Indefinite nouns in ة after which a number is a label or an ordinal (صفحة 5، غرفة 12), not a count in construct. */
const ORDINAL_LIKE = /^[وف]?[بلك]?(?:صفحة|غرفة|مادة|فقرة|حلقة|دورة|نسخة|طبعة|مرحلة|جولة|قاعة|بوابة|منصة|محطة|دقيقة)$/u;

/** The case for a number whose digits start at `index` in `text` (`prefix` is a preposition glued to the digits). */
export function caseAt(text: string, index: number, prefix = ''): Case {
  if (prefix === 'ب' || prefix === 'ل' || prefix === 'وب' || prefix === 'ول' || prefix === 'فب' || prefix === 'لل') return 'gen';
  const before = text.slice(Math.max(0, index - 60), index);
  const m = /([\p{L}\p{M}]+)[\s\u00a0]*$/u.exec(before);
  if (!m) return 'nom';
  const word = m[1]!.replace(/[\u064b-\u0652]/gu, '');
  if (GENITIVE_BEFORE.has(word)) return 'gen';
  // و/ف + preposition (وفي، ومن)
  if (/^[وف]/u.test(word) && GENITIVE_BEFORE.has(word.slice(1))) return 'gen';
  // قدره/مقداره + the amount: a nominal clause, its predicate nominative (غرامة قدرها خمسة آلاف)
  if (/^(?:قدر|مقدار)(?:ه|ها|هم|هما)$/u.test(word)) return 'nom';
  // an indefinite noun with ب/ك glued to it is the number's construct head (بأبعاد، بسماكة، كمعدل): not a verb's suffix
  if (/^[بك]\p{L}{4,}$/u.test(word) && !/(?:ت|وا|نا|تم)$/u.test(word) && !verbOf(word)) return 'gen';
  // an indefinite noun in ة right before the number is its construct head: عبوة كيلوغرامين، بسعة خمسين لتراً
  // (not a nisba adjective in ـية, and not a noun that heads an ordinal: المادة 5، الفقرة 3 are definite)
  if (/^[وف]?[بلك]?\p{L}{2,}[^يا]ة$/u.test(word) && !/^[وف]?(?:[بلك]?ال|لل)/u.test(word) && !ORDINAL_LIKE.test(word)) return 'gen';
  // a verbal noun governs the number in construct: تم تسجيل 1250 إصابة
  if (VERBAL_NOUN.test(word)) return 'gen';
  // تم/يتم + a verbal noun of any form governs the number in construct: تم رفض عمليتين
  if (/(?:^|\s)[وف]?س?[يت]?تم\s+[\p{L}\p{M}]+[\s\u00a0]*$/u.test(before)) return 'gen';
  return objectOfVerb(before) ? 'acc' : 'nom';
}

/**
 * The number is the object of a verb (or an adverbial after it, or a predicate of كان and its
 * sisters, all accusative): the verb right before it carries its own subject (زرنا، دفعوا، نقدم) or
 * is transitive (يضم، استقبل); or a verb, then its subject of 1–3 words ending in a definite word
 * (سجلت البلاد، بلغ عدد الزوار), then the number. A preposition right after the verb fronts a
 * phrase and leaves the number as the subject (يوجد في المدينة 30 مدرسة).
 */
function objectOfVerb(before: string): boolean {
  const clause = before.split(/[،,؛;:.!?؟\n]/u).pop()!;
  const words = clause.replace(/[\u064b-\u0652]/gu, '').trim().split(/\s+/u).filter(Boolean);
  const last = words.length - 1;
  if (last < 0) return false;
  const v = verbOf(words[last]!);
  if (v) return v.ownSubject || v.transitive;
  if (!SUBJECT_END.test(words[last]!)) return false;
  for (let k = last - 1; k >= Math.max(0, last - 3); k--) {
    const verb = verbOf(words[k]!);
    if (!verb) continue;
    // verbs whose count is their agents put the definite noun first as the object: زار الموقع مليونا شخص
    if (!verb.ownSubject && AGENT_VERBS.test(bareVerb(words[k]!))) return false;
    return verb.ownSubject || !PREPOSITION.test(words[k + 1]!);
  }
  return false;
}

/**
 * The case of a number whose digits start at `index`, `prefix` glued before them (ب، ل، و…): a
 * number after و takes the case of the number it is joined to, looked up before it with up to two
 * words after that one (3 ساعات و45 دقيقة، أضف 250 غ دقيق و2 ل ماء), else the context's.
 */
export function numberCaseAt(text: string, index: number, prefix: string): Case {
  if (/^[وف]$/u.test(prefix) || /(?:^|\s)[وف]\s*$/u.test(text.slice(Math.max(0, index - 3), index))) {
    const before = text.slice(0, index - prefix.length).replace(/\s*[وف]?\s*$/u, '');
    const prev = /(?:^|[^\p{L}\p{N}])([بل]?)(\d+(?:\.\d+)?)((?:\s+[\p{L}²³/]+){0,2})\s*$/u.exec(before);
    if (prev) return numberCaseAt(text, before.length - prev[2]!.length - prev[3]!.length, prev[1]!);
    // no number before (read already): a clause opened by a verb that takes an object has its objects joined by و
    const first = before.split(/[،,؛;:.!?؟\n]/u).pop()!.trim().split(/\s+/u)[0]?.replace(/[\u064b-\u0652]/gu, '');
    const verb = first ? verbOf(first) : null;
    if (verb && (verb.ownSubject || verb.transitive) && first !== before.trim()) return 'acc';
    if (prefix) return caseAt(text, index - prefix.length);
  }
  return caseAt(text, index - prefix.length, prefix.replace(/^[وف]/u, ''));
}
