// Number + counted-noun agreement, as a grid: numbers (1–2, 3–10, 11–19, tens, hundreds, thousands,
// millions) × the noun's gender × case (nominative, accusative, genitive) × sound / broken plural.
//
// The expected readings are written from the grammar, not from the code: Karin C. Ryding, "A Reference
// Grammar of Modern Standard Arabic" (Cambridge, 2005), ch. 15 "Numerals and numeral phrases"
// (§15.1.1 one and two: the noun, with واحد/واحدة after it, or the dual; §15.1.3 3–10: reverse
// gender agreement (polarity), the noun a genitive plural; §15.1.4 11–19: both parts invariable
// except 12 (اثنا/اثني عشر), the unit in polarity, عشر/عشرة agreeing, the noun an accusative
// singular; §15.1.5 20–99: tens in ـون/ـين, the unit declined and in polarity, accusative singular
// noun; §15.1.6–8 hundreds, thousands, millions: construct with a genitive singular noun, the duals
// مئتا/مئتي، ألفا/ألفي، مليونا/مليوني, the plural آلاف/ملايين after 3–10 and the singular after
// 11–99 in construct: أربعون ألفَ ريالٍ), and W. Wright, "A Grammar of the Arabic Language", 3rd ed.,
// vol. I §§ 320–325 (the same rules; the feminine ثمانٍ in compounds).
//
// How the normalizer writes its output (and what this test asserts): undiacritized Modern Standard
// Arabic, except the accusative tanween where it changes the letters read: ـاً after a consonant
// (كتاباً، واحداً، خمساً وعشرين، ثمانياً وأربعين). Case endings that are only vowels (ـُ، ـَ، ـِ, the
// tanween on ة) are left to the diacritizer, which runs after the normalizer on the whole sentence.
// So the three cases differ in the written form only in duals, 12, the tens, مئتا/ألفا/مليونا and the
// accusative tanween, and that is where this grid can tell them apart.
import t from 'tap';
import { normalizeArabic } from '../../plugins/engine/dist/frontend/normalize/index.js';

// The contexts: a nominative subject (هناك …), the object of a verb with its own subject (رأينا …),
// the genitive after a preposition (من …).
const CONTEXTS = { nom: 'هناك', acc: 'رأينا', gen: 'من' };

// Nouns: singular, the plural written after 3–10, dual nominative, dual oblique, accusative singular.
const NOUNS = {
  'm-sound': { g: 'm', sing: 'مهندس', pl: 'مهندسين', du: ['مهندسان', 'مهندسين'], acc: 'مهندساً' },
  'm-broken': { g: 'm', sing: 'كتاب', pl: 'كتب', du: ['كتابان', 'كتابين'], acc: 'كتاباً' },
  'm-at': { g: 'm', sing: 'حساب', pl: 'حسابات', du: ['حسابان', 'حسابين'], acc: 'حساباً' },
  'f-sound': { g: 'f', sing: 'سيارة', pl: 'سيارات', du: ['سيارتان', 'سيارتين'], acc: 'سيارة' },
  'f-broken': { g: 'f', sing: 'مدرسة', pl: 'مدارس', du: ['مدرستان', 'مدرستين'], acc: 'مدرسة' },
  'f-broken2': { g: 'f', sing: 'رسالة', pl: 'رسائل', du: ['رسالتان', 'رسالتين'], acc: 'رسالة' },
};

// The numeral as written before its noun: [masculine noun, feminine noun] per case; `noun` is the form
// the noun takes (sing: genitive singular after 100+, pl: plural after 3–10, acc: after 11–99).
const NUMBERS = [
  { n: 3, noun: 'pl', m: 'ثلاثة', f: 'ثلاث' },
  { n: 5, noun: 'pl', m: 'خمسة', f: 'خمس' },
  { n: 8, noun: 'pl', m: 'ثمانية', f: 'ثماني' },
  { n: 10, noun: 'pl', m: 'عشرة', f: 'عشر' },
  { n: 11, noun: 'acc', m: 'أحد عشر', f: 'إحدى عشرة' },
  { n: 12, noun: 'acc', m: { nom: 'اثنا عشر', acc: 'اثني عشر', gen: 'اثني عشر' }, f: { nom: 'اثنتا عشرة', acc: 'اثنتي عشرة', gen: 'اثنتي عشرة' } },
  { n: 15, noun: 'acc', m: 'خمسة عشر', f: 'خمس عشرة' },
  { n: 18, noun: 'acc', m: 'ثمانية عشر', f: 'ثماني عشرة' },
  { n: 20, noun: 'acc', m: { nom: 'عشرون', acc: 'عشرين', gen: 'عشرين' }, f: { nom: 'عشرون', acc: 'عشرين', gen: 'عشرين' } },
  { n: 21, noun: 'acc', m: { nom: 'واحد وعشرون', acc: 'واحداً وعشرين', gen: 'واحد وعشرين' }, f: { nom: 'إحدى وعشرون', acc: 'إحدى وعشرين', gen: 'إحدى وعشرين' } },
  { n: 22, noun: 'acc', m: { nom: 'اثنان وعشرون', acc: 'اثنين وعشرين', gen: 'اثنين وعشرين' }, f: { nom: 'اثنتان وعشرون', acc: 'اثنتين وعشرين', gen: 'اثنتين وعشرين' } },
  { n: 35, noun: 'acc', m: { nom: 'خمسة وثلاثون', acc: 'خمسة وثلاثين', gen: 'خمسة وثلاثين' }, f: { nom: 'خمس وثلاثون', acc: 'خمساً وثلاثين', gen: 'خمس وثلاثين' } },
  { n: 48, noun: 'acc', m: { nom: 'ثمانية وأربعون', acc: 'ثمانية وأربعين', gen: 'ثمانية وأربعين' }, f: { nom: 'ثمان وأربعون', acc: 'ثمانياً وأربعين', gen: 'ثمان وأربعين' } },
  { n: 99, noun: 'acc', m: { nom: 'تسعة وتسعون', acc: 'تسعة وتسعين', gen: 'تسعة وتسعين' }, f: { nom: 'تسع وتسعون', acc: 'تسعاً وتسعين', gen: 'تسع وتسعين' } },
  { n: 100, noun: 'sing', m: 'مئة', f: 'مئة' },
  { n: 200, noun: 'sing', m: { nom: 'مئتا', acc: 'مئتي', gen: 'مئتي' }, f: { nom: 'مئتا', acc: 'مئتي', gen: 'مئتي' } },
  { n: 300, noun: 'sing', m: 'ثلاثمئة', f: 'ثلاثمئة' },
  { n: 1000, noun: 'sing', m: 'ألف', f: 'ألف' },
  { n: 2000, noun: 'sing', m: { nom: 'ألفا', acc: 'ألفي', gen: 'ألفي' }, f: { nom: 'ألفا', acc: 'ألفي', gen: 'ألفي' } },
  { n: 3000, noun: 'sing', m: 'ثلاثة آلاف', f: 'ثلاثة آلاف' },
  { n: 11000, noun: 'sing', m: 'أحد عشر ألف', f: 'أحد عشر ألف' },
  { n: 40000, noun: 'sing', m: { nom: 'أربعون ألف', acc: 'أربعين ألف', gen: 'أربعين ألف' }, f: { nom: 'أربعون ألف', acc: 'أربعين ألف', gen: 'أربعين ألف' } },
  { n: 100000, noun: 'sing', m: 'مئة ألف', f: 'مئة ألف' },
  { n: 1000000, noun: 'sing', m: 'مليون', f: 'مليون' },
  { n: 2000000, noun: 'sing', m: { nom: 'مليونا', acc: 'مليوني', gen: 'مليوني' }, f: { nom: 'مليونا', acc: 'مليوني', gen: 'مليوني' } },
  { n: 5000000, noun: 'sing', m: 'خمسة ملايين', f: 'خمسة ملايين' },
  { n: 15000000, noun: 'sing', m: 'خمسة عشر مليون', f: 'خمسة عشر مليون' },
];

/** The grid: every number × noun × case, with its input (digits + the noun a careful writer writes) and expected reading. */
function grid() {
  const rows = [];
  for (const [kind, nn] of Object.entries(NOUNS)) {
    for (const [c, ctx] of Object.entries(CONTEXTS)) {
      // 1: the noun, then واحد/واحدة agreeing with it (accusative: كتاباً واحداً)
      const one = c === 'acc' ? `${nn.acc} ${nn.g === 'm' ? 'واحداً' : 'واحدة'}` : `${nn.sing} ${nn.g === 'm' ? 'واحد' : 'واحدة'}`;
      rows.push({ kind, c, n: 1, input: `${ctx} 1 ${nn.sing}`, expected: `${ctx} ${one}` });
      // 2: the dual alone
      rows.push({ kind, c, n: 2, input: `${ctx} 2 ${nn.sing}`, expected: `${ctx} ${nn.du[c === 'nom' ? 0 : 1]}` });
      for (const row of NUMBERS) {
        const form = row[nn.g];
        const words = typeof form === 'string' ? form : form[c];
        const written = row.noun === 'pl' ? nn.pl : nn.sing;
        const noun = row.noun === 'pl' ? nn.pl : row.noun === 'acc' ? nn.acc : nn.sing;
        rows.push({ kind, c, n: row.n, input: `${ctx} ${row.n} ${written}`, expected: `${ctx} ${words} ${noun}` });
      }
      // 103: the noun follows the last part (مئة وثلاثة كتب)
      rows.push({ kind, c, n: 103, input: `${ctx} 103 ${nn.pl}`, expected: `${ctx} مئة و${NUMBERS[0][nn.g]} ${nn.pl}` });
    }
  }
  return rows;
}

t.test('agreement grid (Ryding ch. 15): numbers × gender × case × sound/broken plural', async (t) => {
  const rows = grid();
  t.ok(rows.length >= 500, `${rows.length} cases`);
  const by = {};
  const misses = [];
  for (const r of rows) {
    const got = normalizeArabic(r.input);
    for (const key of [`noun ${r.kind}`, `case ${r.c}`, `n ${r.n}`]) {
      const b = (by[key] ??= { n: 0, ok: 0 });
      b.n++;
      if (got === r.expected) b.ok++;
    }
    if (got !== r.expected) misses.push({ ...r, got });
  }
  t.comment(`grid: ${rows.length - misses.length}/${rows.length}`);
  for (const [k, v] of Object.entries(by)) t.comment(`  ${k}: ${v.ok}/${v.n}`);
  for (const m of misses) t.comment(`MISS ${m.input} → ${m.got}  (expected ${m.expected})`);
  t.same(misses, [], 'every cell of the grid as the grammar has it');
});

// The rest of the agreement rules, one by one.
t.test('الـ + number: a definite cardinal before its noun, an ordinal after a noun in its case', async (t) => {
  t.equal(normalizeArabic('خلال الـ48 ساعة'), 'خلال الثماني والأربعين ساعة');
  t.equal(normalizeArabic('في الدورة الـ30'), 'في الدورة الثلاثين');
  t.equal(normalizeArabic('الدورة الـ25 للمهرجان'), 'الدورة الخامسة والعشرون للمهرجان');
  t.equal(normalizeArabic('في الدورة الـ25 للمهرجان'), 'في الدورة الخامسة والعشرين للمهرجان');
  t.equal(normalizeArabic('خلال الـ5 سنوات المقبلة'), 'خلال الخمس سنوات المقبلة');
  t.equal(normalizeArabic('الـ30 يوما الأولى'), 'الثلاثون يوماً الأولى');
  // Written apart from its number (a space after the tatweel), the same readings (it was «ال ثمان وأربعون»).
  t.equal(normalizeArabic('خلال الـ 48 ساعة'), 'خلال الثماني والأربعين ساعة');
  t.equal(normalizeArabic('في الدورة الـ 30'), 'في الدورة الثلاثين');
  t.equal(normalizeArabic('حصل على المركز الـ 5'), 'حصل على المركز الخامس');
});

t.test('gender from the noun, not a list: ة, ـات, broken plurals, masculine ـات, exceptions', async (t) => {
  t.equal(normalizeArabic('14 شاحنة'), 'أربع عشرة شاحنة');
  t.equal(normalizeArabic('7 رحلات'), 'سبع رحلات');
  t.equal(normalizeArabic('6 تعليقات'), 'ستة تعليقات', 'تعليق is a masculine verbal noun');
  t.equal(normalizeArabic('4 اجتماعات'), 'أربعة اجتماعات');
  t.equal(normalizeArabic('5 نساء'), 'خمس نساء', 'نساء: plural of امرأة');
  t.equal(normalizeArabic('3 أطباء'), 'ثلاثة أطباء', 'أطباء: plural of طبيب');
  t.equal(normalizeArabic('9 قرى'), 'تسع قرى');
  t.equal(normalizeArabic('3 خلفاء'), 'ثلاثة خلفاء');
  t.equal(normalizeArabic('13 خليفة'), 'ثلاثة عشر خليفة', 'خليفة is masculine');
  t.equal(normalizeArabic('4 حروب'), 'أربع حروب', 'حرب is feminine with no ending');
  t.equal(normalizeArabic('3 مستشفيات'), 'ثلاثة مستشفيات');
  t.equal(normalizeArabic('5 مدرسة'), 'خمس مدارس', 'a singular after 3–10 becomes the plural the table knows');
});

t.test('case from the syntax around the number', async (t) => {
  t.equal(normalizeArabic('زرنا 35 متحفا'), 'زرنا خمسة وثلاثين متحفاً', 'a verb with its own subject: object');
  t.equal(normalizeArabic('استقبل المستشفى 22 مريضا'), 'استقبل المستشفى اثنين وعشرين مريضاً', 'Form X: transitive');
  t.equal(normalizeArabic('وصل 20 شخصا'), 'وصل عشرون شخصاً', 'intransitive: the number is the subject');
  t.equal(normalizeArabic('يوجد في المدينة 30 مدرسة'), 'يوجد في المدينة ثلاثون مدرسة', 'a fronted phrase: the number is the subject');
  t.equal(normalizeArabic('سجلت البلاد 200 إصابة'), 'سجلت البلاد مئتي إصابة');
  t.equal(normalizeArabic('زار المعرض 2 مليون زائر'), 'زار المعرض مليونا زائر', 'agents counted after the object');
  t.equal(normalizeArabic('بحوالي 40000 ريال'), 'بحوالي أربعين ألف ريال');
});

// Realistic sentences (banking SMS, news, e-commerce, phone numbers and codes), readings written by hand
// from the same grammar; number-sentences.json. Written in the session that made the rules, so not held out.
t.test('realistic sentences: exact-match rate by category', async (t) => {
  const { readFileSync } = await import('node:fs');
  const cases = JSON.parse(readFileSync(new URL('./number-sentences.json', import.meta.url), 'utf8'));
  t.ok(cases.length >= 60, `${cases.length} sentences`);
  const by = {};
  const misses = [];
  for (const c of cases) {
    const got = normalizeArabic(c.input);
    const b = (by[c.category] ??= { n: 0, ok: 0 });
    b.n++;
    if (got === c.expected) b.ok++;
    else misses.push({ ...c, got });
  }
  t.comment(`sentences: ${cases.length - misses.length}/${cases.length}`);
  for (const [k, v] of Object.entries(by)) t.comment(`  ${k}: ${v.ok}/${v.n}`);
  for (const m of misses) t.comment(`MISS [${m.category}] ${m.input} → ${m.got}  (expected ${m.expected})`);
  t.ok((cases.length - misses.length) / cases.length >= 0.95, 'at least 95 % read as expected');
});
