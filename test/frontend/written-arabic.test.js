// The rest of written Arabic (issue 30 item 3): fractions, the decimal comma, percent and per-mille
// on either side, signs (negative numbers at any length, temperatures, GMT±N), scores and ranges,
// durations and clock times, month-year and Hijri dates, units and their abbreviations, URLs and
// e-mail addresses, in realistic sentences (news, banking SMS, e-commerce, sports, weather, recipes,
// legal: written-arabic-cases.json).
//
// The expected readings were written from the grammar, before running the code, not copied from its
// output: Karin C. Ryding, "A Reference Grammar of Modern Standard Arabic" (Cambridge, 2005), ch. 15
// (numerals: polarity of 3–10, the accusative singular after 11–99, the genitive singular after
// hundreds and thousands, the dual for two; fractions: نصف، ثلث، ربع … عشر, the dual ثلثان/ثلثا in
// construct, the plural أفعال after 3–10: ثلاثة أرباع، ثلاثة أخماس; decimals with فاصلة; percent
// with بالمئة) and W. Wright, "A Grammar of the Arabic Language", 3rd ed., vol. I, the numerals
// (§§ 320–330, the fractions among them), vol. II on construct and the cases the numbers take
// (genitive after prepositions and a noun in construct — مساحة، بنسبة، بتاريخ، زمن —, accusative as an
// object or adverbial after a verb with its subject). A unit is a masculine noun (متر، كيلومتر،
// غرام، لتر) or the feminine درجة, counted like any noun; a relative adjective after it (مربع، مئوي)
// agrees as with a non-human plural (ثلاثة أمتار مربعة، خمس درجات مئوية). The house conventions of
// the normalizer are kept (see normalize/index.ts): undiacritized output with the accusative tanween
// written where it is read (كيلومتراً), بالمئة / بالألف, "month عام year", سالب for a minus sign,
// مقابل between the two sides of a score (its second number genitive after the adverb مقابل), زائد /
// ناقص for a time zone's offset (followed by the genitive, as after a noun in construct).
import t from 'tap';
import { readFileSync } from 'node:fs';
import { normalizeArabic } from '../../plugins/engine/dist/frontend/normalize/index.js';

const cases = JSON.parse(readFileSync(new URL('./written-arabic-cases.json', import.meta.url), 'utf8'));
const CATEGORIES = ['news', 'banking', 'ecommerce', 'sports', 'weather', 'recipes', 'legal'];
// At least this share of every category reads exactly as written (the misses are printed).
const FLOOR = 0.9;

t.test('realistic sentences, by category', async (t) => {
  t.ok(cases.length >= 150, `${cases.length} sentences`);
  const byCat = {};
  for (const c of cases) {
    const got = normalizeArabic(c.input);
    const cat = (byCat[c.category] ??= { n: 0, ok: 0, misses: [] });
    cat.n++;
    if (got === c.expected) cat.ok++;
    else cat.misses.push(`${c.input} → ${got}  (expected ${c.expected})`);
  }
  const ok = Object.values(byCat).reduce((a, c) => a + c.ok, 0);
  t.comment(`written Arabic: ${ok}/${cases.length} sentences read as written`);
  for (const name of CATEGORIES) {
    const cat = byCat[name];
    t.ok(cat && cat.n >= 20, `${name}: ${cat?.n ?? 0} sentences`);
    if (!cat) continue;
    t.comment(`  ${name}: ${cat.ok}/${cat.n}`);
    for (const m of cat.misses) t.comment(`MISS [${name}] ${m}`);
    t.ok(cat.ok / cat.n >= FLOOR, `${name}: ${cat.ok}/${cat.n} >= ${FLOOR}`);
  }
});

// Each form on its own, so a regression names the rule it broke.
const RULES = [
  // fractions: construct before the noun, the dual's ن dropped, the case of the place
  ['fractions', 'أضف ¾ كوب ماء', 'أضف ثلاثة أرباع كوب ماء'],
  ['fractions', 'يملك 2/3 الأسهم', 'يملك ثلثي الأسهم'],
  ['fractions', 'بقي 1/5 الوقت', 'بقي خمس الوقت'],
  ['fractions', 'خسر 5/8 قيمته', 'خسر خمسة أثمان قيمته'],
  ['fractions', 'استغرق 2 1/2 ساعة', 'استغرق ساعتين ونصفاً'],
  ['fractions', 'الرقم 3 1/2', 'الرقم ثلاثة ونصف'],
  ['fractions', 'يوم 1/2 موعد الاجتماع', 'يوم الأول من فبراير موعد الاجتماع'],
  // decimal comma vs a list
  ['decimal comma', 'النتيجة 4,75', 'النتيجة أربعة فاصلة خمسة وسبعون'],
  ['decimal comma', 'النتيجة ٤٫٧٥', 'النتيجة أربعة فاصلة خمسة وسبعون'],
  ['decimal comma', 'الخيارات 1، 2، 3', 'الخيارات واحد، اثنان، ثلاثة'],
  ['decimal comma', 'الخيارات 1,2,3', 'الخيارات واحد، اثنان، ثلاثة'],
  ['decimal comma', 'المبلغ 1,500', 'المبلغ ألف وخمسمئة'],
  // percent and per-mille on either side
  ['percent', 'نسبة النجاح %12', 'نسبة النجاح اثنا عشر بالمئة'],
  ['percent', 'نسبة النجاح 12%', 'نسبة النجاح اثنا عشر بالمئة'],
  ['percent', 'نسبة النجاح ٪١٢', 'نسبة النجاح اثنا عشر بالمئة'],
  ['percent', 'نسبة النجاح 12 بالمئة', 'نسبة النجاح اثنا عشر بالمئة'],
  ['percent', 'معدل الوفيات 3‰', 'معدل الوفيات ثلاثة بالألف'],
  ['percent', 'معدل الوفيات ‰3', 'معدل الوفيات ثلاثة بالألف'],
  // signs
  ['signs', 'الرصيد -7', 'الرصيد سالب سبعة'],
  ['signs', 'الرصيد -1234567890123', 'الرصيد سالب تريليون ومئتان وأربعة وثلاثون ملياراً وخمسمئة وسبعة وستون مليوناً وثمانمئة وتسعون ألفاً ومئة وثلاثة وعشرون'],
  ['signs', 'الحرارة -5°م', 'الحرارة سالب خمس درجات مئوية'],
  ['signs', 'الحرارة °5 تحت الصفر', 'الحرارة خمس درجات تحت الصفر'],
  ['signs', 'الحرارة 5℃', 'الحرارة خمس درجات مئوية'],
  ['signs', 'بتوقيت GMT+2', 'بتوقيت GMT زائد اثنين'],
  ['signs', 'بتوقيت UTC-3', 'بتوقيت UTC ناقص ثلاثة'],
  ['signs', 'بتوقيت UTC+5:30', 'بتوقيت UTC زائد خمسة ونصف'],
  // scores vs ranges
  ['scores', 'فاز الفريق 3-1', 'فاز الفريق ثلاثة مقابل واحد'],
  ['scores', 'خسر الفريق أمام ضيفه 0-2', 'خسر الفريق أمام ضيفه صفر مقابل اثنين'],
  ['scores', 'من 3-5 أيام', 'من ثلاثة إلى خمسة أيام'],
  ['scores', 'من 3-5 ليال', 'من ثلاث إلى خمس ليال'],
  ['scores', 'فاز بعد 3-4 محاولات', 'فاز بعد ثلاث إلى أربع محاولات'],
  // durations vs clock times
  ['durations', 'زمن السباق 2:05:30', 'زمن السباق ساعتان وخمس دقائق وثلاثون ثانية'],
  ['durations', 'الساعة 2:05', 'الساعة الثانية وخمس دقائق'],
  ['durations', 'مدة الفيلم 2:15', 'مدة الفيلم ساعتان وخمس عشرة دقيقة'],
  // month-year, Hijri
  ['dates', 'الموعد النهائي 15/3', 'الموعد النهائي الخامس عشر من مارس'],
  ['dates', 'صدر في 03-2021', 'صدر في مارس عام ألفين وواحد وعشرين'],
  ['dates', 'صدر في 03/2021', 'صدر في مارس عام ألفين وواحد وعشرين'],
  ['dates', 'من 2020-2021', 'من ألفين وعشرين إلى ألفين وواحد وعشرين'],
  ['dates', 'في 9/1445 هـ', 'في رمضان عام ألف وأربعمئة وخمسة وأربعين للهجرة'],
  ['dates', 'في 1/3/1446 هجرية', 'في الأول من ربيع الأول عام ألف وأربعمئة وستة وأربعين هجرية'],
  // units in agreement
  ['units', 'مشى 3 كم', 'مشى ثلاثة كيلومترات'],
  ['units', 'مشى 11 كم', 'مشى أحد عشر كيلومتراً'],
  ['units', 'مشى 1 كم', 'مشى كيلومتراً واحداً'],
  ['units', 'قطع 2 كم', 'قطع كيلومترين'],
  ['units', 'الغرفة 3 م²', 'الغرفة ثلاثة أمتار مربعة'],
  ['units', 'الخزان 2 م³', 'الخزان متران مكعبان'],
  ['units', 'المساحة 100 كم²', 'المساحة مئة كيلومتر مربع'],
  ['units', 'الوزن 5 كجم', 'الوزن خمسة كيلوغرامات'],
  ['units', 'الجرعة 500 ملغ', 'الجرعة خمسمئة مليغرام'],
  ['units', 'السرعة 90 كم/س', 'السرعة تسعون كيلومتراً في الساعة'],
  ['units', 'الحرارة 100°ف', 'الحرارة مئة درجة فهرنهايت'],
  ['units', 'الطول 12 مم', 'الطول اثنا عشر مليمتراً'],
  // URLs and e-mail
  ['urls', 'www.sawt.ai', 'دبليو دبليو دبليو نقطة sawt نقطة ai'],
  ['urls', 'first_name-1@mail.co', 'first أندرسكور name داش واحد آت mail نقطة co'],
];

t.test('each written form, by its rule', async (t) => {
  for (const [rule, input, expected] of RULES) t.equal(normalizeArabic(input), expected, `${rule}: ${input}`);
});
