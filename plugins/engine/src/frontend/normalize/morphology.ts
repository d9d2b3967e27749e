/**
 * The counted noun after a number, from its form rather than from a list of nouns: its gender
 * (from the singular), whether it is written as a plural, and the forms agreement asks for
 * (dual, accusative singular, the plural after 3–10). Rules, after Ryding, "A Reference Grammar of
 * Modern Standard Arabic" (2005), ch. 4.2 (gender) and ch. 15 (numerals):
 * - a singular in ة is feminine (سيارة، شاحنة), as is one in the feminine endings ـاء of the
 *   فعلاء pattern (صحراء) and ـى (ذكرى، دعوى); a ـى noun of a م- pattern is masculine (مستوى، مبنى);
 * - a sound feminine plural in ـات counts a feminine singular (رحلات ← رحلة) unless its singular is
 *   masculine: the verbal nouns of the derived forms (تعليقات ← تعليق، اجتماعات ← اجتماع،
 *   استثمارات ← استثمار) and the masculine nouns listed in MASC_AT (حسابات ← حساب);
 * - a sound masculine plural (ـون/ـين) counts a masculine singular;
 * - a broken plural counts the gender of its singular (BROKEN, the common broken plurals);
 * - the exceptions are listed: masculine nouns in ة (خليفة) and feminine nouns with no ending
 *   (شمس، أرض، حرب، يد، عين).
 */
import type { Gender } from './nouns.js';

/** Broken plurals → their singular (the gender is the singular's, by the rules below). */
const BROKEN_PAIRS = `
أيام:يوم أشهر:شهر شهور:شهر أعوام:عام سنين:سنة أسابيع:أسبوع دقائق:دقيقة ثوان:ثانية ثواني:ثانية ليال:ليلة ليالي:ليلة قرون:قرن عقود:عقد أجيال:جيل
أشخاص:شخص رجال:رجل نساء:امرأة أطفال:طفل أولاد:ولد طلاب:طالب طلبة:طالب تلاميذ:تلميذ أطباء:طبيب عمال:عامل وزراء:وزير علماء:عالم خبراء:خبير
أعضاء:عضو زملاء:زميل أصدقاء:صديق أقارب:قريب أبناء:ابن إخوة:أخ إخوان:أخ سكان:ساكن زوار:زائر ضيوف:ضيف جنود:جندي ضباط:ضابط قتلى:قتيل جرحى:جريح
أسرى:أسير مرضى:مريض موتى:ميت ضحايا:ضحية شهداء:شهيد قادة:قائد قضاة:قاض أساتذة:أستاذ أئمة:إمام شيوخ:شيخ نواب:نائب رؤساء:رئيس ملوك:ملك أمراء:أمير
حجاج:حاج مسافرين:مسافر ركاب:راكب لاعبين:لاعب نجوم:نجم فرسان:فارس شباب:شاب فتيات:فتاة بنات:بنت أخوات:أخت أمهات:أم آباء:أب
كتب:كتاب أقلام:قلم دفاتر:دفتر بيوت:بيت منازل:منزل غرف:غرفة شقق:شقة مبان:مبنى مباني:مبنى أبراج:برج مدن:مدينة قرى:قرية دول:دولة بلدان:بلد
مدارس:مدرسة مساجد:مسجد كنائس:كنيسة شوارع:شارع طرق:طريق جسور:جسر أسواق:سوق محال:محل متاجر:متجر مطاعم:مطعم فنادق:فندق مكاتب:مكتب مصانع:مصنع
مزارع:مزرعة حدائق:حديقة أشجار:شجرة أزهار:زهرة كراسي:كرسي أبواب:باب نوافذ:نافذة جدران:جدار سفن:سفينة قوارب:قارب صواريخ:صاروخ أسلحة:سلاح
قذائف:قذيفة أسهم:سهم عقود:عقد مشاريع:مشروع أرباح:ربح أسعار:سعر نقاط:نقطة دروس:درس أهداف:هدف جوائز:جائزة ألقاب:لقب مقاعد:مقعد أصوات:صوت
مراكز:مركز فروع:فرع مناطق:منطقة أحياء:حي قطع:قطعة أجهزة:جهاز هواتف:هاتف حواسيب:حاسوب أفلام:فيلم ألعاب:لعبة صور:صورة رسائل:رسالة حروف:حرف
أسطر:سطر سطور:سطر فصول:فصل مواد:مادة أسئلة:سؤال أجوبة:جواب أخطاء:خطأ أفكار:فكرة آراء:رأي أخبار:خبر تقارير:تقرير بحوث:بحث أبحاث:بحث
قوانين:قانون شروط:شرط حقوق:حق أنواع:نوع أصناف:صنف ألوان:لون أحجام:حجم أمتار:متر أميال:ميل أكياس:كيس علب:علبة صناديق:صندوق أكواب:كوب
ملاعق:ملعقة أرغفة:رغيف فناجين:فنجان أطباق:طبق كؤوس:كأس حبوب:حب أدوية:دواء أقراص:قرص ملاعب:ملعب فرق:فريق أندية:ناد أشواط:شوط أدوار:دور
مراحل:مرحلة أمور:أمر أشياء:شيء أسباب:سبب وسائل:وسيلة سلع:سلعة بضائع:بضاعة طرود:طرد نسخ:نسخة برامج:برنامج مواقع:موقع قروض:قرض ودائع:وديعة
أقساط:قسط فواتير:فاتورة تذاكر:تذكرة حقائب:حقيبة أجنحة:جناح رؤوس:رأس أعين:عين عيون:عين أيد:يد أيادي:يد أقدام:قدم أمم:أمة شعوب:شعب جيوش:جيش
قبائل:قبيلة أسر:أسرة خيام:خيمة أبقار:بقرة طيور:طير أسماك:سمكة كلاب:كلب قطط:قطة جمال:جمل أحصنة:حصان خيول:خيل علوم:علم مواهب:موهبة جرائم:جريمة
حوادث:حادث قضايا:قضية حروب:حرب معارك:معركة زلازل:زلزال أمطار:مطر أعمدة:عمود هدايا:هدية مزايا:ميزة أنظمة:نظام أمثلة:مثال أطعمة:طعام أبنية:بناء
أغذية:غذاء أحذية:حذاء أدلة:دليل أمكنة:مكان أزمنة:زمن أودية:واد أوعية:وعاء أغطية:غطاء بحار:بحر أنهار:نهر جبال:جبل جزر:جزيرة آبار:بئر
شركاء:شريك خلفاء:خليفة أنبياء:نبي أولياء:ولي أغنياء:غني فقراء:فقير عملاء:عميل وكلاء:وكيل سفراء:سفير رجالات:رجل مهام:مهمة مهمات:مهمة صفوف:صف أقسام:قسم أجزاء:جزء أرقام:رقم أسماء:اسم
ملايين:مليون آلاف:ألف دراهم:درهم دنانير:دينار قروش:قرش فلوس:فلس أطنان:طن دوائر:دائرة نتائج:نتيجة فوائد:فائدة خسائر:خسارة ملفات:ملف
معالم:معلم متاحف:متحف معابد:معبد قصور:قصر مدرجات:مدرج عمارات:عمارة أبيات:بيت قصائد:قصيدة روايات:رواية أغان:أغنية أغاني:أغنية
`;

/** Singulars of a sound feminine plural (…ات) that are masculine. */
const MASC_AT_SINGULARS = `
حمام قطار طلب حساب نبات حيوان ملف مطار مشروع منتج مستشفى اجتماع امتحان مستوى سجل جواز مقال بيان مجال خطاب سنت ريال دولار جنيه مليار تريليون
كيلومتر كيلوغرام كيلوجرام غرام جرام لتر سنتيمتر مليمتر قرار تطبيق إصدار حجز محل سند منتخب مسلسل انفجار إجراء اختبار تعليق تحديث تغيير تعديل مقترح
مؤتمر مهرجان فيديو باص مدرج معرض مختبر مخيم مسلح مستوطن مستثمر مستند موقف مكون مركب مصطلح مقرر مشهد منشور مخطط مطلب متطلب
`;

/** Masculine singulars in ة (and masculine plurals in ة that are no broken plural above). */
const MASC_TA = new Set(['خليفة', 'رحالة', 'علامة', 'نابغة', 'داهية', 'حمزة', 'أسامة', 'طلحة', 'معاوية', 'عبيدة', 'بحارة', 'مشاة', 'دعاة', 'رعاة', 'ولاة', 'غزاة', 'حماة', 'رماة', 'سادة']);
/** Feminine singulars with no feminine ending. */
const FEM_UNMARKED = new Set(['شمس', 'أرض', 'دار', 'نار', 'حرب', 'بئر', 'عين', 'أذن', 'يد', 'نفس', 'ريح', 'كأس', 'سوق', 'روح', 'بنت', 'أخت', 'أم', 'عروس', 'فأس', 'قدم', 'سن', 'ساق', 'كتف', 'خمر', 'عصا', 'سماء', 'شمال', 'يمين', 'ذراع', 'جحيم', 'فرس']);
/** Masculine ـى / ـاء singulars the rules below would call feminine. */
const MASC_LONG = new Set(['فتى', 'مدى', 'هدى', 'صدى', 'ماء', 'دواء', 'غذاء', 'عشاء', 'شتاء', 'بناء', 'لقاء', 'إجراء', 'إنشاء', 'غطاء', 'وعاء', 'حذاء', 'دعاء', 'سماء']);

const BROKEN = new Map<string, string>();
for (const pair of BROKEN_PAIRS.split(/\s+/u).filter(Boolean)) {
  const [pl, sg] = pair.split(':') as [string, string];
  if (!BROKEN.has(pl)) BROKEN.set(pl, sg);
}
/** Singular → its broken plural (to write the plural after 3–10 when the text gives the singular). */
const PLURAL_OF = new Map<string, string>();
for (const [pl, sg] of BROKEN) if (!PLURAL_OF.has(sg) && !pl.endsWith('ات')) PLURAL_OF.set(sg, pl);
const MASC_AT = new Set(MASC_AT_SINGULARS.split(/\s+/u).filter(Boolean));

const DIACRITICS = /[\u064b-\u0652\u0670]/gu;

/** A word without diacritics, tatweel, the conjunctions و/ف and the article (with a glued ب/ل/ك). */
export function bareNoun(word: string): string {
  const w = word.replace(DIACRITICS, '').replace(/\u0640/gu, '');
  const m = /^[وف]?(?:[بلك]?ال|لل)(\p{L}{2,})$/u.exec(w);
  if (m) return m[1]!;
  // a written accusative tanween (كتاباً، كتابا) is no part of the noun
  return w;
}

/** The singular's gender by its ending and the exception lists. */
function singularGender(sg: string): Gender {
  if (MASC_TA.has(sg) || MASC_LONG.has(sg) || MASC_AT.has(sg)) return 'm';
  if (FEM_UNMARKED.has(sg)) return 'f';
  if (sg.endsWith('ة')) return 'f';
  // فُعلى (ذكرى، دعوى، كبرى) is feminine; مَفعى nouns of place and derived participles (مستوى، مبنى) are not
  if (sg.endsWith('ى') && sg.length >= 3) return sg.startsWith('م') ? 'm' : 'f';
  // فَعلاء (صحراء، حسناء) is feminine; أفعاء/إفعاء verbal nouns and فِعال nouns of a hamzated root are not
  if (sg.endsWith('اء') && sg.length === 5 && !/^[أإا]/u.test(sg)) return 'f';
  return 'm';
}

/** Sound feminine plurals whose singular is a masculine verbal noun of a derived form. */
const MASC_VERBAL_NOUN_AT = [
  /^ت\p{L}{2}ي\p{L}ات$/u, // تفعيل: تعليقات، تحديثات، تطبيقات
  /^[إا]\p{L}{2}ا\p{L}ات$/u, // إفعال: إعلانات، إصدارات، إنجازات
  /^ا\p{L}[تطد]\p{L}ا\p{L}ات$/u, // افتعال: اجتماعات، اختبارات، اتصالات
  /^ان\p{L}{2}ا\p{L}ات$/u, // انفعال: انتخابات، انفجارات
  /^است\p{L}{2}ا\p{L}ات$/u, // استفعال: استثمارات، استفسارات
];

export interface CountedNoun {
  /** The word without its conjunction and article. */
  bare: string;
  gender: Gender;
  /** The singular, where the word is a plural the rules recognize, else the word itself. */
  singular: string;
  /** The word is a plural (sound or broken). */
  plural: boolean;
}

/** What the counted noun `word` (as written after a number) is: gender, singular, number. */
export function analyzeNoun(word: string): CountedNoun {
  let bare = bareNoun(word);
  // the accusative ـاً/ـا of an indefinite singular (كتاباً، متحفا) is an ending
  const acc = /^(\p{L}{2,}[^اىةء])ا$/u.exec(bare);
  if (acc && !BROKEN.has(bare)) bare = acc[1]!;
  const broken = BROKEN.get(bare);
  if (broken) return { bare, gender: singularGender(broken), singular: broken, plural: true };
  if (bare.length >= 4 && bare.endsWith('ات')) {
    const stem = bare.slice(0, -2);
    if (MASC_AT.has(stem)) return { bare, gender: 'm', singular: stem, plural: true };
    // …يات of a masculine …ى (مستويات ← مستوى)
    if (stem.endsWith('ي') && MASC_AT.has(`${stem.slice(0, -1)}ى`)) return { bare, gender: 'm', singular: `${stem.slice(0, -1)}ى`, plural: true };
    if (MASC_VERBAL_NOUN_AT.some((re) => re.test(bare))) return { bare, gender: 'm', singular: stem, plural: true };
    return { bare, gender: 'f', singular: `${stem}ة`, plural: true };
  }
  // sound masculine plural (مهندسون، موظفين): a participle or nisba of 4+ letters before the ending
  if (/^\p{L}{3,}(?:ون|ين)$/u.test(bare) && bare.length >= 6) return { bare, gender: 'm', singular: bare.slice(0, -2), plural: true };
  return { bare, gender: singularGender(bare), singular: bare, plural: false };
}

/** The gender of the counted noun `word` (singular or plural, as written). */
export function nounGender(word: string): Gender {
  return analyzeNoun(word).gender;
}

/** The plural a count of 3–10 takes, from a singular (broken plurals by the table, ة → ات); undefined when unknown. */
export function pluralOf(singular: string): string | undefined {
  const broken = PLURAL_OF.get(singular);
  if (broken) return broken;
  if (singular.endsWith('ة') && !MASC_TA.has(singular)) return `${singular.slice(0, -1)}ات`;
  if (MASC_AT.has(singular)) return `${singular}ات`;
  return undefined;
}

/** The dual of a singular (nominative ان / oblique ين; ة → ت); undefined for ـى/ـاء/ـا nouns. */
export function dualOf(singular: string, oblique: boolean): string | undefined {
  if (/[اىءو]$/u.test(singular) || singular.length < 2) return undefined;
  const stem = singular.endsWith('ة') ? `${singular.slice(0, -1)}ت` : singular;
  return stem + (oblique ? 'ين' : 'ان');
}

/** The accusative indefinite singular as written (كتاباً; سيارة and ـى/ـاء nouns unchanged but ـاء → ـاءً). */
export function accusativeOf(singular: string): string {
  if (/[ةىا]$/u.test(singular)) return singular;
  if (singular.endsWith('اء')) return `${singular}\u064b`;
  if (singular.endsWith('ء')) return `${singular}اً`;
  return `${singular}ا\u064b`;
}

/**
 * Whether a word after a number shows itself a counted noun (where a number may also be an ordinal
 * after its head: القمة 25 رئيس دولة / القرن 19 شهد): a plural the rules know, a known singular, a
 * noun in ة, or the written accusative ـا; not a word with a glued preposition or a pronoun suffix.
 */
export function looksCounted(word: string): boolean {
  if (/^[بل]\p{L}{3,}|(?:ها|هم|هن|كم|نا)$/u.test(word) && !BROKEN.has(word)) return false;
  const a = analyzeNoun(word);
  return a.plural || PLURAL_OF.has(a.singular) || a.bare.endsWith('ة') || /\p{L}{2}ا$/u.test(word);
}
