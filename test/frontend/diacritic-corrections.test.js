// The diacritizer's word corrections (plugins/engine/src/frontend/diacritic-corrections.ts), heard
// as a listener hears them: each sentence is one written for this test (none from a benchmark), and
// each expected reading comes from the grammar: the imperative's pattern (Wright I §98–99; زار
// يزور → زُرْ، زُورُوا), the Form I imperfect's dictionary vowel (عرَف يعرِف، شرِب يشرَب، كتَب
// يكتُب), the noun عُمْر "age" against the name عُمَر, the genitive after a preposition, and the
// construct's first term, which takes no tanween (Ryding §8.1).
import path from 'node:path';
import t from 'tap';
import { ENGINE, TASHKEEL, bundledModels, repoRoot } from './helpers.js';

const { Diacritizer, stripDiacritics } = await import(ENGINE);
const { correctDiacritics } = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/diacritic-corrections.js'));

const d = await Diacritizer.load(bundledModels, TASHKEEL, { cacheEntries: 0 });
t.teardown(() => d.release());

/** Marks in one canonical order (the diacritizer writes shadda first, for espeak-ng). */
const nfc = (s) => s.normalize('NFC');

/** The diacritized words of `text`, punctuation dropped, marks in canonical order. */
async function words(text) {
  const out = await d.diacritize(text);
  if (stripDiacritics(out) !== stripDiacritics(text)) throw new Error(`letters changed: ${out}`);
  return nfc(out).split(/\s+/u).map((w) => w.replace(/[.،؟!:]/gu, ''));
}

t.test('an imperative at the start of a clause is read as one, not as a past tense', async (t) => {
  t.equal((await words('زوروا موقعنا للحصول على أحدث العروض.'))[0], nfc('زُورُوا'), 'visit! (زار يزور), not زَوَّرُوا "they forged"');
  t.equal((await words('اكتبوا أسماءكم في الخانة المخصصة.'))[0], nfc('اكْتُبُوا'), 'write! (كتب يكتُب)');
  const steps = await words('ادخل رقم هاتفك ثم اضغط على زر الإرسال.');
  t.equal(steps[0], nfc('ادْخُلْ'), 'enter! (دخل يدخُل)');
  t.equal(steps[4], nfc('اضْغَطْ'), 'press! after ثم (ضغط يضغَط), not اضْغَطَّ');
  const app = await words('حمل التطبيق الآن واستمتع بالعروض.');
  t.equal(app[0], nfc('حَمِّلِ'), 'download! (Form II), its sukun a kasra before the article');
  t.equal(app[3], nfc('وَاسْتَمْتِعْ'), 'and enjoy! coordinated with it');
  t.equal((await words('سجل دخولك إلى حسابك.'))[0], nfc('سَجِّلْ'), 'log in! where the sentence says "your"');
});

t.test('a past tense that looks like an imperative stays a past tense where nobody is addressed', async (t) => {
  t.not((await words('سجل المنتخب هدفين في المباراة.'))[0], nfc('سَجِّلْ'), 'the team scored');
  t.not((await words('شارك الوزير في المؤتمر الدولي.'))[0], nfc('شَارِكْ'), 'the minister took part');
  t.not((await words('أرسل لك الرمز في رسالة نصية.'))[0], nfc('أَرْسِلْ'), 'I send you the code: أُرْسِلُ, no order');
});

t.test('a Form I verb in the imperfect has its own middle vowel', async (t) => {
  t.equal((await words('هل تعرف الطريق إلى المحطة؟'))[1], nfc('تَعْرِفُ'), 'عرَف يعرِف');
  t.equal((await words('نحن نشرب الشاي كل صباح.'))[1], nfc('نَشْرَبُ'), 'شرِب يشرَب');
  t.match((await words('لا تكتب اسمك على الورقة.'))[1], new RegExp(`^${nfc('تَكْتُب')}`, 'u'), 'كتَب يكتُب');
  t.match((await words('هل تريد أن تشرب القهوة؟'))[3], new RegExp(`^${nfc('تَشْرَب')}`, 'u'), 'شرِب يشرَب after أن');
  t.equal((await words('يعرف عن الرجل أنه كريم.'))[0], nfc('يُعْرَفُ'), 'a passive stays a passive (it is known of the man)');
  t.equal((await words('يعرض المتحف مجموعة من القطع الأثرية.'))[0], nfc('يَعْرِضُ'), 'عرَض يعرِض: the museum shows (no Form IV يُعْرِضُ)');

});

t.test('عمر is the age after a preposition or before "nearing", the name elsewhere', async (t) => {
  t.equal((await words('توفي الشاعر عن عمر يناهز الثمانين.'))[3], nfc('عُمْرٍ'), 'at the age of nearly eighty');
  t.equal((await words('في عمر الزهور رحل الفنان.'))[1], nfc('عُمْرِ'), 'in the age of flowers');
  t.equal((await words('بلغ عمر المبنى مئة عام.'))[1], nfc('عُمْرُ'), 'the building\'s age reached');
  t.equal((await words('قال عمر إن الاجتماع سيعقد غدا.'))[1], nfc('عُمَرُ'), 'Omar said: the name');
  t.equal((await words('كان عمر بن الخطاب خليفة عادلا.'))[1], nfc('عُمَرُ'), 'Omar ibn al-Khattab');
});

t.test('the first term of a construct has no tanween: before a Latin name, after a preposition before a definite noun', async (t) => {
  t.equal((await words('أعلنت شركة Apple عن هاتف جديد.'))[1], nfc('شَرِكَةُ'), 'the company of Apple: nominative subject, no tanween');
  t.equal((await words('التقى الوزير بمدير شركة Google في باريس.'))[3], nfc('شَرِكَةِ'), 'genitive, no tanween');
  t.notMatch(nfc(await d.diacritize('يعمل المهندس في مدينة الرياض منذ عامين.')), nfc('مَدِينَةٍ'), 'the city of Riyadh: no tanween');
  t.match(nfc(await d.diacritize('زرت متحفًا الأسبوع الماضي.')), nfc('مُتْحَفًا'), 'a time adverb after the noun is no construct: the tanween stays');
});

t.test('the object of an order is accusative; a recipe\'s steps are orders', async (t) => {
  const pay = await words('اختر طريقة الدفع المناسبة لك.');
  t.equal(pay[0], nfc('اخْتَرْ'));
  t.equal(pay[1], nfc('طَرِيقَةَ'), 'choose the method: accusative object');
  const salt = await words('أضف الملح والفلفل ثم اخلط المكونات جيدا.');
  t.equal(salt[0], nfc('أَضِفِ'), 'add! (Form IV of ضاف), kasra before the article');
  t.equal(salt[1], nfc('الْمِلْحَ'), 'the salt: object');
  t.equal(salt[2], nfc('وَالْفُلْفُلَ'), 'and the pepper: coordinated object');
  t.equal(salt[4], nfc('اخْلِطِ'), 'mix! (خلط يخلِط)');
  t.match(salt[5], new RegExp(`${nfc('اتِ')}$`, 'u'), 'the ingredients: a feminine plural\'s accusative is its kasra');
  const oven = await words('اغسل الخضار جيدا ثم سخن الفرن.');
  t.equal(oven[4], nfc('سَخِّنِ'), 'heat! (Form II): the text gives orders');
});

t.test('a diptote or a definite noun takes no tanween', async (t) => {
  const ministers = await words('شارك في المؤتمر وزراء وخبراء من دول عربية.');
  t.equal(ministers[3], nfc('وُزَرَاءُ'), 'فُعَلَاء');
  t.equal(ministers[4], nfc('وَخُبَرَاءُ'), 'وَ + فُعَلَاء');
  t.equal((await words('اشترت الشركة مصانع قديمة في المدينة.'))[2].replace(/[\u064b-\u0650]$/u, ''), nfc('مَصَانِع'), 'مَفَاعِل: its stem');
  t.notMatch((await words('اشترت الشركة مصانع قديمة في المدينة.'))[2], /[\u064b-\u064d]/u, 'مَفَاعِل: no tanween');
  t.notMatch((await words('هذه أنباء سارة للجميع.'))[1], /^أَنْبَاء[\u064e-\u0650]$/u, 'أَفْعَال of a hamza root is no diptote: its tanween is not taken away');
});

t.test('corrections: false gives the model\'s own marks (for measuring the layer)', async (t) => {
  const plain = await Diacritizer.load(bundledModels, TASHKEEL, { corrections: false, cacheEntries: 0 });
  t.teardown(() => plain.release());
  const text = 'زوروا موقعنا للحصول على أحدث العروض.';
  const raw = await plain.diacritize(text);
  t.equal(stripDiacritics(raw), text);
  t.not(nfc(raw).split(' ')[0], nfc('زُورُوا'), 'the model alone does not read the order');
  t.equal((await words(text))[0], nfc('زُورُوا'), 'the corrected reading');
});

t.test('the user\'s marks and kept text are never corrected', async (t) => {
  t.equal((await words('زوَّروا الوثائق الرسمية.'))[0], nfc('زَوَّرُوا'), 'a shadda written by the user: they forged');
  t.equal(nfc(await d.diacritize('اكْتَبُّوا')), nfc('اكْتَبُّوا'), 'fully diacritized text is read as written');
});

t.test('the rules on words as the diacritizer hands them over', async (t) => {
  const word = (reading, before = ' ') => {
    const bare = stripDiacritics(reading);
    const marks = [];
    for (const ch of reading.normalize('NFC')) {
      if (/[\u064b-\u0652]/u.test(ch)) marks[marks.length - 1] += ch;
      else marks.push('');
    }
    return { bare, marks, fixed: false, before };
  };
  const read = (ws) => ws.map((w) => [...w.bare].map((ch, k) => ch + w.marks[k]).join('')).join(' ');
  const past = [word('سَجَّلَ', ''), word('الْفَرِيقُ'), word('هَدَفًا')];
  t.equal(correctDiacritics(past), 0, 'nothing addresses anyone: no word changed');
  const order = [word('سَجَّلَ', ''), word('بَيَانَاتِكَ'), word('الْآنَ')];
  t.equal(correctDiacritics(order), 1);
  t.equal(nfc(read(order).split(' ')[0]), nfc('سَجِّلْ'), 'your data, now: an order');
  const formIV = [word('يُخْرِجُ', ''), word('الْوَزِيرُ')];
  t.equal(correctDiacritics(formIV), 0, 'a common Form IV (أخرج يُخرِج) stays');
  const misread = [word('يُعْرِضُ', ''), word('الْمُتْحَفُ')];
  t.equal(correctDiacritics(misread), 1);
  t.equal(nfc(read(misread).split(' ')[0]), nfc('يَعْرِضُ'), 'a Form IV the root hardly has is its Form I');
  const inna = [word('إِنَّ', ''), word('الْوَضْعَ'), word('الِاقْتِصَادِيُّ'), word('صَعْبٌ')];
  correctDiacritics(inna);
  t.equal(nfc(read(inna)), nfc('إِنَّ الْوَضْعَ الِاقْتِصَادِيَّ صَعْبٌ'), 'the noun of إنّ and its adjective are accusative, the predicate nominative');
  const lan = [word('لَنْ', ''), word('يَكُونُ'), word('الطَّرِيقُ')];
  correctDiacritics(lan);
  t.equal(nfc(read(lan).split(' ')[1]), nfc('يَكُونَ'), 'لن: subjunctive');
  const lam = [word('لَمْ', ''), word('يَحْضُرُ'), word('أَحَدٌ')];
  correctDiacritics(lam);
  t.equal(nfc(read(lam).split(' ')[1]), nfc('يَحْضُرْ'), 'لم: jussive');
  const fixed = [{ ...word('زَوَّرُوا', ''), fixed: true }];
  t.equal(correctDiacritics(fixed), 0, 'a fixed word is left alone');
});

// Wright I §20 (the plural's mīm takes its damma before hamzat al-wasl), Ryding §18.1 (أنّ/إنّ before
// a noun, أنْ before a verb), Ryding §8.1 and §16.4 (the noun after a preposition or after a
// construct head such as خلال، بعد، مثل، كل is genitive; its nisba adjective agrees).
t.test('grammar of the word after a particle or a construct head', async (t) => {
  const word = (reading, before = ' ') => {
    const bare = stripDiacritics(reading);
    const marks = [];
    for (const ch of reading.normalize('NFC')) {
      if (/[\u064b-\u0652]/u.test(ch)) marks[marks.length - 1] += ch;
      else marks.push('');
    }
    return { bare, marks, fixed: false, before };
  };
  const corrected = (reading) => {
    const ws = reading.split(' ').map((r, k) => word(r, k ? ' ' : ''));
    correctDiacritics(ws);
    return nfc(ws.map((w) => [...w.bare].map((ch, k) => ch + w.marks[k]).join('')).join(' '));
  };
  t.equal(corrected('وَأَكَّدَ أَنْ الْقُوَّاتُ الْأَمْرِيكِيَّةُ'), nfc('وَأَكَّدَ أَنَّ الْقُوَّاتِ الْأَمْرِيكِيَّةَ'), 'أنّ before a definite noun, its noun accusative (ـاتِ for a feminine plural)');
  t.equal(corrected('قَالَ إِنْ الْوَضْعُ خَطِيرٌ'), nfc('قَالَ إِنَّ الْوَضْعَ خَطِيرٌ'), 'إنّ after قال before a definite noun');
  t.equal(corrected('لِأَنْ الطَّرِيقُ مُغْلَقٌ'), nfc('لِأَنَّ الطَّرِيقَ مُغْلَقٌ'), 'لأنّ: the clitic keeps its kasra');
  t.equal(corrected('يُرِيدُ أَنْ يَسْتَقِيلَ'), nfc('يُرِيدُ أَنْ يَسْتَقِيلَ'), 'أنْ before a verb stays');
  t.equal(corrected('خِلَالَ الْأُسْبُوعَ الْمَاضِي'), nfc('خِلَالَ الْأُسْبُوعِ الْمَاضِي'), 'genitive after خلال');
  t.equal(corrected('فِي الْمِنْطَقَةُ الشَّرْقِيَّةُ'), nfc('فِي الْمِنْطَقَةِ الشَّرْقِيَّةِ'), 'genitive after في, and its nisba adjective');
  t.equal(corrected('بِالْمَدِينَةَ الْقَدِيمَةُ'), nfc('بِالْمَدِينَةِ الْقَدِيمَةُ'), 'بـ + the article: genitive (a non-nisba word after it may start a new constituent: left alone)');
  t.equal(corrected('مِثْلَ الْأَطْفَالُ'), nfc('مِثْلَ الْأَطْفَالِ'), 'genitive after مثل');
  t.equal(corrected('مَثَّلَ الْمُنْتَخَبُ الْبِلَادَ'), nfc('مَثَّلَ الْمُنْتَخَبُ الْبِلَادَ'), 'the verb مَثَّلَ (represented) governs no genitive: its subject stays nominative');
  t.equal(corrected('قَبِلَ الرَّئِيسُ الدَّعْوَةَ'), nfc('قَبِلَ الرَّئِيسُ الدَّعْوَةَ'), 'the verb قَبِلَ (accepted), not the adverb قَبْلَ');
  t.equal(corrected('بَيْنَ الْمُسْلِمِينَ'), nfc('بَيْنَ الْمُسْلِمِينَ'), 'a sound plural\'s ـينَ is already its genitive');
  t.equal(corrected('فِي الْقَانُونُ'), nfc('فِي الْقَانُونِ'), 'a singular in ـون takes kasra');
  // a title or place noun before a proper name heads a construct: no tanween (Ryding §8.1)
  t.equal(corrected('فِي وِلَايَةٍ أَيُوا'), nfc('فِي وِلَايَةِ أَيُوا'), 'ولايةِ أيوا');
  t.equal(corrected('أَعْلَنَ حَاكِمٌ فْلُورِيدَا'), nfc('أَعْلَنَ حَاكِمُ فْلُورِيدَا'), 'حاكمُ فلوريدا');
  t.equal(corrected('أَسَّسَ شَرِكَةً كَبِيرَةً'), nfc('أَسَّسَ شَرِكَةً كَبِيرَةً'), 'an agreeing adjective (with its tanween) is no name');
  t.equal(corrected('فِي مَدِينَةٍ أُخْرَى'), nfc('فِي مَدِينَةٍ أُخْرَى'), 'أخرى is an adjective');
  t.equal(corrected('هِيَ شَرِكَةٌ تَعْمَلُ فِي الطَّاقَةِ'), nfc('هِيَ شَرِكَةٌ تَعْمَلُ فِي الطَّاقَةِ'), 'a relative clause (an imperfect verb) after an indefinite noun');
  t.equal(corrected('وَهِيَ مُنَظَّمَةٌ مَقَرُّهَا جِنِيفُ'), nfc('وَهِيَ مُنَظَّمَةٌ مَقَرُّهَا جِنِيفُ'), 'a relative clause (a noun with its pronoun)');
  t.equal(corrected('نَزَحُوا إِلَى مِنْطَقَةٍ لَجَأَ إِلَيْهَا'), nfc('نَزَحُوا إِلَى مِنْطَقَةٍ لَجَأَ إِلَيْهَا'), 'a relative clause (a past verb)');
  const plural = await d.diacritize('وعليكم الالتزام بالتعليمات');
  t.match(nfc(plural), new RegExp(nfc('عَلَيْكُمُ ال'), 'u'), 'the plural\'s mīm before the article: damma, not kasra');
});
