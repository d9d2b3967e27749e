/**
 * The reviewed word lists behind diacritic-corrections.ts. Every reading here is written from the
 * grammar (the verb's pattern and its dictionary vowel), not from the model's output; none was taken
 * from a benchmark's lines. Readings are fully voweled; hamzat al-wasl (a word-initial ا of the
 * imperative) carries no mark, as in the diacritizer's own output.
 */

/**
 * Imperatives (2nd person: m. sg., m. pl., f. sg.) as a shop, a bank or an app addresses its
 * customers. `past`: the same letters also spell a past-tense verb (سجل: سَجَّلَ / سَجِّلْ), so the
 * imperative is read only where the clause addresses someone (see secondPerson in the rules).
 */
export const IMPERATIVES: Record<string, { reading: string; past?: true }> = {
  // Form I (hamzat al-wasl + the jussive stem): no past tense has these letters.
  زر: { reading: 'زُرْ', past: true }, // also زِرّ (a button): read only where the clause addresses someone
  زوروا: { reading: 'زُورُوا' },
  زوري: { reading: 'زُورِي' },
  قم: { reading: 'قُمْ' },
  قوموا: { reading: 'قُومُوا' },
  قومي: { reading: 'قُومِي' },
  قولوا: { reading: 'قُولُوا' },
  قولي: { reading: 'قُولِي' },
  كن: { reading: 'كُنْ' },
  كونوا: { reading: 'كُونُوا' },
  كوني: { reading: 'كُونِي' },
  عودوا: { reading: 'عُودُوا' },
  اكتب: { reading: 'اكْتُبْ' },
  اكتبوا: { reading: 'اكْتُبُوا' },
  اكتبي: { reading: 'اكْتُبِي' },
  ادخل: { reading: 'ادْخُلْ' },
  ادخلوا: { reading: 'ادْخُلُوا' },
  ادخلي: { reading: 'ادْخُلِي' },
  اضغط: { reading: 'اضْغَطْ' },
  اضغطوا: { reading: 'اضْغَطُوا' },
  اضغطي: { reading: 'اضْغَطِي' },
  احصل: { reading: 'احْصُلْ' },
  احصلوا: { reading: 'احْصُلُوا' },
  احصلي: { reading: 'احْصُلِي' },
  اطلب: { reading: 'اطْلُبْ' },
  اطلبوا: { reading: 'اطْلُبُوا' },
  اطلبي: { reading: 'اطْلُبِي' },
  احجز: { reading: 'احْجِزْ' },
  احجزوا: { reading: 'احْجِزُوا' },
  احجزي: { reading: 'احْجِزِي' },
  افتح: { reading: 'افْتَحْ' },
  افتحوا: { reading: 'افْتَحُوا' },
  افتحي: { reading: 'افْتَحِي' },
  اقرأ: { reading: 'اقْرَأْ' },
  اقرؤوا: { reading: 'اقْرَؤُوا' },
  اقرئي: { reading: 'اقْرَئِي' },
  اذهب: { reading: 'اذْهَبْ' },
  اذهبوا: { reading: 'اذْهَبُوا' },
  اذهبي: { reading: 'اذْهَبِي' },
  اسأل: { reading: 'اسْأَلْ' },
  اسألوا: { reading: 'اسْأَلُوا' },
  اسألي: { reading: 'اسْأَلِي' },
  اعرف: { reading: 'اعْرِفْ' },
  اعرفوا: { reading: 'اعْرِفُوا' },
  ادفع: { reading: 'ادْفَعْ' },
  ادفعوا: { reading: 'ادْفَعُوا' },
  ادفعي: { reading: 'ادْفَعِي' },
  احفظ: { reading: 'احْفَظْ' },
  احفظوا: { reading: 'احْفَظُوا' },
  احذر: { reading: 'احْذَرْ' },
  احذروا: { reading: 'احْذَرُوا' },
  انقر: { reading: 'انْقُرْ' },
  انقروا: { reading: 'انْقُرُوا' },
  انقري: { reading: 'انْقُرِي' },
  امسح: { reading: 'امْسَحْ' },
  امسحوا: { reading: 'امْسَحُوا' },
  اشرب: { reading: 'اشْرَبْ' },
  اشربوا: { reading: 'اشْرَبُوا' },
  اسمع: { reading: 'اسْمَعْ' },
  اسمعوا: { reading: 'اسْمَعُوا' },
  انظر: { reading: 'انْظُرْ' },
  انظروا: { reading: 'انْظُرُوا' },
  اترك: { reading: 'اتْرُكْ' },
  اتركوا: { reading: 'اتْرُكُوا' },
  ارسم: { reading: 'ارْسُمْ' },
  اغسل: { reading: 'اغْسِلْ' },
  اغسلوا: { reading: 'اغْسِلُوا' },
  اطبخ: { reading: 'اطْبُخْ' },
  اخلط: { reading: 'اخْلِطْ' },
  اخلطوا: { reading: 'اخْلِطُوا' },
  اقطع: { reading: 'اقْطَعْ' },
  اعمل: { reading: 'اعْمَلْ' },
  اعملوا: { reading: 'اعْمَلُوا' },
  العب: { reading: 'الْعَبْ' },
  العبوا: { reading: 'الْعَبُوا' },
  ضع: { reading: 'ضَعْ' },
  ضعوا: { reading: 'ضَعُوا' },
  ضعي: { reading: 'ضَعِي' },
  خذ: { reading: 'خُذْ' },
  خذوا: { reading: 'خُذُوا' },
  خذي: { reading: 'خُذِي' },
  دع: { reading: 'دَعْ' },
  اخفق: { reading: 'اخْفِقْ' },
  اعجن: { reading: 'اعْجِنْ' },
  اسكب: { reading: 'اسْكُبْ' },
  اشتر: { reading: 'اشْتَرِ' },
  // Forms II–X: the same letters are a past-tense verb (Form IV singulars أرسل، أدخل also the
  // first person أُرْسِلُ: left out).
  اتصل: { reading: 'اتَّصِلْ', past: true },
  اتصلوا: { reading: 'اتَّصِلُوا', past: true },
  اتصلي: { reading: 'اتَّصِلِي' },
  اشترك: { reading: 'اشْتَرِكْ', past: true },
  اشتركوا: { reading: 'اشْتَرِكُوا', past: true },
  اشتركي: { reading: 'اشْتَرِكِي' },
  استمتع: { reading: 'اسْتَمْتِعْ', past: true },
  استمتعوا: { reading: 'اسْتَمْتِعُوا', past: true },
  استمتعي: { reading: 'اسْتَمْتِعِي' },
  استخدم: { reading: 'اسْتَخْدِمْ', past: true },
  استخدموا: { reading: 'اسْتَخْدِمُوا', past: true },
  استفد: { reading: 'اسْتَفِدْ' },
  استفيدوا: { reading: 'اسْتَفِيدُوا' },
  اكتشف: { reading: 'اكْتَشِفْ', past: true },
  اكتشفوا: { reading: 'اكْتَشِفُوا', past: true },
  انتظر: { reading: 'انْتَظِرْ', past: true },
  انتظروا: { reading: 'انْتَظِرُوا', past: true },
  انتظري: { reading: 'انْتَظِرِي' },
  انضموا: { reading: 'انْضَمُّوا', past: true },
  اختر: { reading: 'اخْتَرْ' },
  اختاروا: { reading: 'اخْتَارُوا', past: true },
  اختاري: { reading: 'اخْتَارِي' },
  اتبع: { reading: 'اتَّبِعْ', past: true },
  اتبعوا: { reading: 'اتَّبِعُوا', past: true },
  سجل: { reading: 'سَجِّلْ', past: true },
  سجلوا: { reading: 'سَجِّلُوا', past: true },
  سجلي: { reading: 'سَجِّلِي' },
  حمل: { reading: 'حَمِّلْ', past: true },
  حملوا: { reading: 'حَمِّلُوا', past: true },
  حملي: { reading: 'حَمِّلِي' },
  جرب: { reading: 'جَرِّبْ', past: true },
  جربوا: { reading: 'جَرِّبُوا', past: true },
  جربي: { reading: 'جَرِّبِي' },
  حدد: { reading: 'حَدِّدْ', past: true },
  فعل: { reading: 'فَعِّلْ', past: true },
  تابع: { reading: 'تَابِعْ', past: true },
  تابعوا: { reading: 'تَابِعُوا', past: true },
  تابعونا: { reading: 'تَابِعُونَا', past: true },
  تابعي: { reading: 'تَابِعِي' },
  شارك: { reading: 'شَارِكْ', past: true },
  شاركوا: { reading: 'شَارِكُوا', past: true },
  شاركونا: { reading: 'شَارِكُونَا', past: true },
  شاركي: { reading: 'شَارِكِي' },
  راجع: { reading: 'رَاجِعْ', past: true },
  راجعوا: { reading: 'رَاجِعُوا', past: true },
  ساعدونا: { reading: 'سَاعِدُونَا', past: true },
  أرسلوا: { reading: 'أَرْسِلُوا', past: true },
  أرسلي: { reading: 'أَرْسِلِي' },
  أدخلوا: { reading: 'أَدْخِلُوا', past: true },
  أدخلي: { reading: 'أَدْخِلِي' },
  أكملوا: { reading: 'أَكْمِلُوا', past: true },
  أضف: { reading: 'أَضِفْ' },
  أضيفوا: { reading: 'أَضِيفُوا', past: true },
  تأكد: { reading: 'تَأَكَّدْ', past: true },
  تأكدوا: { reading: 'تَأَكَّدُوا', past: true },
  تأكدي: { reading: 'تَأَكَّدِي' },
  تواصل: { reading: 'تَوَاصَلْ', past: true },
  تواصلوا: { reading: 'تَوَاصَلُوا', past: true },
  تسوق: { reading: 'تَسَوَّقْ', past: true },
  تسوقوا: { reading: 'تَسَوَّقُوا', past: true },
  تفضل: { reading: 'تَفَضَّلْ', past: true },
  تفضلوا: { reading: 'تَفَضَّلُوا', past: true },
  تفضلي: { reading: 'تَفَضَّلِي' },
  // in a recipe's steps
  سخن: { reading: 'سَخِّنْ', past: true },
  قطع: { reading: 'قَطِّعْ', past: true },
  قلب: { reading: 'قَلِّبْ', past: true },
  قدم: { reading: 'قَدِّمْ', past: true },
  اشتروا: { reading: 'اشْتَرُوا', past: true },
};

/** Imperatives of the list after which a noun is no direct object (a preposition or nothing follows them). */
export const INTRANSITIVE = new Set([
  'قم', 'قوموا', 'قومي', 'عودوا', 'اذهب', 'اذهبوا', 'اذهبي', 'انظر', 'انظروا', 'احصل', 'احصلوا', 'احصلي', 'اتصل', 'اتصلوا', 'اتصلي',
  'اشترك', 'اشتركوا', 'اشتركي', 'استمتع', 'استمتعوا', 'استمتعي', 'استفد', 'استفيدوا', 'انضموا', 'تأكد', 'تأكدوا', 'تأكدي',
  'تواصل', 'تواصلوا', 'تسوق', 'تسوقوا', 'تفضل', 'تفضلوا', 'تفضلي', 'انقر', 'انقروا', 'انقري', 'اضغط', 'اضغطوا', 'اضغطي',
  'تابعونا', 'شاركونا', 'ساعدونا', 'انتظر', 'انتظروا', 'انتظري',
]);

/**
 * Sound triliteral (Form I) verbs by root, with the vowel of the imperfect's middle radical (its
 * "bāb": يَكْتُبُ u, يَضْرِبُ i, يَفْتَحُ a), as any dictionary gives it. Roots whose t-/y-prefixed
 * letters are also a common Form V verb or noun (تعلم، تقدم، تحدث…) or whose prefixed letters are an
 * elative (أكبر، أكثر) are left out.
 */
export const IMPERFECT_VOWEL: Record<string, 'a' | 'u' | 'i'> = {
  كتب: 'u', دخل: 'u', خرج: 'u', طلب: 'u', حصل: 'u', شكر: 'u', نظر: 'u', ترك: 'u', رسم: 'u', طبخ: 'u',
  سكن: 'u', درس: 'u', شرح: 'a', نقل: 'u', قتل: 'u', حكم: 'u', رقص: 'u', سجد: 'u',
  نشر: 'u', بلغ: 'u', قعد: 'u', كسب: 'i', رجع: 'i', جلس: 'i', عرف: 'i', غسل: 'i',
  نزل: 'i', حجز: 'i', خلط: 'i', صبر: 'i', ضرب: 'i', غفر: 'i', قدر: 'i', كشف: 'i', ملك: 'i',
  عقد: 'i', سرق: 'i', حرص: 'i', عجز: 'i', شرب: 'a', فتح: 'a', ذهب: 'a', لعب: 'a', سمع: 'a', فهم: 'a',
  عمل: 'a', ضغط: 'a', دفع: 'a', قرأ: 'a', سأل: 'a', منع: 'a', جمع: 'a', نجح: 'a', رفع: 'a', قطع: 'a',
  سمح: 'a', مسح: 'a', صنع: 'a', بحث: 'a', زرع: 'a', ركب: 'a', شعر: 'u', فقد: 'i', حفظ: 'a', ربح: 'a',
  خسر: 'a', سبح: 'a', ضحك: 'a', بدأ: 'a', نسخ: 'a', حلم: 'u', غرق: 'a', طرد: 'u', عرض: 'i', دعم: 'a',
  قصد: 'i', طبع: 'a', نقص: 'u', زعم: 'u', صرف: 'i', سحب: 'a', فرض: 'i', شهد: 'a', ظهر: 'a', قبل: 'a',
  سكت: 'u', صعد: 'a', هرب: 'u', طرح: 'a', فحص: 'a', سقط: 'u', كسر: 'i', صدر: 'u', جرح: 'a',
};

/**
 * Roots whose Form IV (أَفْعَلَ، يُفْعِلُ) is common: there يُفْعِلُ is a reading of its own (يُخْرِجُ،
 * يُصْدِرُ، تُظْهِرُ) and stays; for the other roots of the list it is a misread Form I (يُعْرِضُ → يَعْرِضُ).
 */
export const COMMON_FORM_IV = new Set([
  'سمع', 'كسب', 'جلس', 'رجع', 'خرج', 'دخل', 'نزل', 'حكم', 'بلغ', 'ضرب', 'عجز', 'جمع', 'نجح', 'ركب', 'شعر', 'فقد', 'ضحك',
  'غرق', 'عمل', 'فهم', 'سكن', 'ظهر', 'سقط', 'صدر', 'قبل', 'شهد', 'نقص', 'صعد', 'سكت', 'طبع', 'فرض', 'هرب',
]);

/** Words that address the listener (with the 2nd-person suffixes ـك، ـكم، ـكن after a stem). */
export const ADDRESSING = new Set(['الآن', 'هنا', 'فورا', 'فوراً', 'مجانا', 'مجاناً', 'أنت', 'أنتم', 'أنتن', 'لك', 'بك', 'عليك', 'إليك', 'منك', 'معك', 'لكم', 'بكم', 'عليكم', 'إليكم', 'منكم', 'معكم']);

/**
 * Nouns a customer is told about with "your" (ـك، ـكم): حسابك، طلبكم. A bare final ك is no sign
 * of address by itself (ذلك، البنك، شارك، ترك end in it).
 */
export const ADDRESSED_NOUNS = new Set([
  'حساب', 'طلب', 'رقم', 'بطاقت', 'هاتف', 'جوال', 'بيانات', 'دخول', 'اسم', 'عنوان', 'تذكرت', 'رصيد', 'مرور', 'معلومات',
  'تطبيق', 'جهاز', 'حجز', 'اشتراك', 'طلبات', 'منزل', 'عائلت', 'صحت', 'وقت', 'نفس', 'بريد', 'موعد', 'سيارت', 'شحنت', 'مشتريات',
  'رسالت', 'هويت', 'ملف', 'سؤال', 'رأي', 'فاتورت', 'مكافأت', 'نقاط', 'حسابات', 'أطفال', 'أسرت', 'بيت', 'عمل', 'أصدقاء',
]);

/** Words after which a noun with tanween does not lose it: relative pronouns and time adverbs. */
export const NOT_A_GENITIVE = new Set([
  'الذي', 'التي', 'الذين', 'اللذان', 'اللتان', 'اللذين', 'اللتين', 'اللاتي', 'اللواتي', 'الآن', 'اليوم', 'الليلة', 'البارحة',
]);

/**
 * Time nouns that follow an indefinite noun as an adverb (قُتل خمسةُ أشخاصٍ الأسبوعَ الماضي): the
 * noun before them keeps its tanween, unless it is a noun of time position (نهايةِ العام).
 */
export const TIME_ADVERBS = new Set([
  'الأسبوع', 'العام', 'الشهر', 'السنة', 'الأحد', 'الاثنين', 'الثلاثاء', 'الأربعاء', 'الخميس', 'الجمعة', 'السبت', 'الصباح', 'المساء', 'الفجر', 'الظهر', 'العصر', 'المغرب', 'العشاء',
]);
export const TIME_HEADS = new Set(['نهاية', 'بداية', 'مطلع', 'منتصف', 'أواخر', 'أوائل', 'أول', 'آخر', 'خلال', 'طوال', 'مدى', 'صباح', 'مساء', 'يوم', 'ليلة', 'ظهر', 'عصر', 'فجر', 'صلاة', 'موسم', 'ميزانية', 'موازنة']);

/** Prepositions after which عمر is a noun (age), not the name عُمَر. */
export const PREPOSITIONS = new Set(['في', 'عن', 'من', 'منذ', 'حتى', 'إلى', 'على', 'مع', 'بين', 'قبل', 'بعد']);

/**
 * Nouns used as adverbs, prepositions or quantifiers that head a construct (Ryding §8.1, §16.4;
 * Wright II §§ 70–72), with their reading up to the case ending: the word after them is genitive.
 * The reading tells them from verbs with the same letters (قَبِلَ، مَثَّلَ، غَيَّرَ، حَوَّلَ، عَبَرَ).
 */
export const CONSTRUCT_HEADS: Record<string, string> = {
  قبل: 'قَبْلَ', بعد: 'بَعْدَ', خلال: 'خِلَالَ', حول: 'حَوْلَ', ضد: 'ضِدَّ', دون: 'دُونَ', بين: 'بَيْنَ', عند: 'عِنْدَ',
  عبر: 'عَبْرَ', وفق: 'وَفْقَ', نحو: 'نَحْوَ', تجاه: 'تُجَاهَ', إثر: 'إِثْرَ', عقب: 'عَقِبَ', قرب: 'قُرْبَ', أمام: 'أَمَامَ',
  خلف: 'خَلْفَ', وراء: 'وَرَاءَ', فوق: 'فَوْقَ', تحت: 'تَحْتَ', ضمن: 'ضِمْنَ', طوال: 'طَوَالَ', مثل: 'مِثْلَ', غير: 'غَيْرَ',
  كل: 'كُلَّ', بعض: 'بَعْضَ', جميع: 'جَمِيعَ', معظم: 'مُعْظَمَ', عدة: 'عِدَّةَ', منذ: 'مُنْذُ', لدى: 'لَدَى', حسب: 'حَسَبَ',
  أثناء: 'أَثْنَاءَ', بسبب: 'بِسَبَبِ', جراء: 'جَرَّاءَ', لصالح: 'لِصَالِحِ', حيال: 'حِيَالَ', إزاء: 'إِزَاءَ', قبيل: 'قُبَيْلَ', بعيد: 'بُعَيْدَ',
};

/** Titles and place nouns that head a construct with a proper name (ولاية أيوا، حاكم فلوريدا، شركة ميتا). */
export const NAMED_HEADS = new Set([
  'ولاية', 'محافظة', 'مدينة', 'منطقة', 'مقاطعة', 'إقليم', 'جزيرة', 'جبل', 'نهر', 'بحيرة', 'قرية', 'بلدة', 'مخيم', 'حي', 'شارع',
  'ميناء', 'مطار', 'مستشفى', 'مجمع', 'جامعة', 'شركة', 'وكالة', 'صحيفة', 'قناة', 'منظمة', 'حركة', 'حزب', 'جماعة', 'متجر', 'منصة',
  'حاكم', 'رئيس', 'وزير', 'نائب', 'زعيم', 'قائد', 'ملك', 'أمير', 'سلطان', 'الشيخ', 'الرئيس', 'قبر', 'مسجد', 'كنيسة', 'كاتدرائية',
  'عاصمة', 'دولة', 'جمهورية', 'مملكة', 'إمارة', 'سفير', 'مدير', 'محافظ', 'عمدة', 'بلدية', 'سجن', 'معبر', 'مستوطنة', 'بحر', 'خليج',
]);
