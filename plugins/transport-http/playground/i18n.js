// Interface strings: Arabic first, English on the toggle.
export const STRINGS = {
  ar: {
    title: 'صوت — ساحة التجربة', key: 'مفتاح الواجهة (API key)', useKey: 'استخدام المفتاح',
    keyHint: 'يُحفظ المفتاح في هذه الجلسة فقط (sessionStorage) ويُرسل إلى هذا الخادم وحده.',
    speakTitle: 'النطق', model: 'النموذج', dialect: 'اللهجة', voice: 'الصوت', hearSample: 'استمع إلى العينة', allDialects: 'كل اللهجات',
    speak: 'انطق', stop: 'إيقاف', download: 'تنزيل WAV', cloneTitle: 'استنساخ صوت', record: 'تسجيل', stopRecording: 'إنهاء التسجيل',
    orUpload: 'أو ارفع ملفا', voiceName: 'اسم الصوت', preview: 'معاينة', clone: 'استنساخ', denoiseTitle: 'إزالة الضوضاء',
    noisyFile: 'ملف صوتي فيه ضوضاء', before: 'قبل', after: 'بعد', lang: 'English',
    needKey: 'أدخل مفتاح الواجهة أولا.', loaded: 'تم تحميل النماذج والأصوات.', speaking: 'جارٍ النطق…', spoken: 'انتهى النطق.',
    previewing: 'جارٍ إعداد المعاينة…', previewReady: 'المعاينة جاهزة: استمع ثم استنسخ.', cloned: 'تم إنشاء الصوت', denoising: 'جارٍ إزالة الضوضاء…',
    denoised: 'تمت إزالة الضوضاء.', recording: 'جارٍ التسجيل…',
    format: 'صيغة التنزيل', downloadFormat: 'تنزيل بهذه الصيغة', fetchingFormat: 'جارٍ إعداد الملف…', formatReady: 'الملف جاهز:',
  },
  en: {
    title: 'Sawt — playground', key: 'API key', useKey: 'Use key',
    keyHint: 'The key is kept for this session only (sessionStorage) and sent to this server alone.',
    speakTitle: 'Speak', model: 'Model', dialect: 'Dialect', voice: 'Voice', hearSample: 'Hear sample', allDialects: 'All dialects',
    speak: 'Speak', stop: 'Stop', download: 'Download WAV', cloneTitle: 'Clone a voice', record: 'Record', stopRecording: 'Stop recording',
    orUpload: 'or upload a file', voiceName: 'Voice name', preview: 'Preview', clone: 'Clone', denoiseTitle: 'Denoise',
    noisyFile: 'Noisy audio file', before: 'Before', after: 'After', lang: 'العربية',
    needKey: 'Enter an API key first.', loaded: 'Models and voices loaded.', speaking: 'Speaking…', spoken: 'Done.',
    previewing: 'Making the preview…', previewReady: 'Preview ready: listen, then clone.', cloned: 'Voice created', denoising: 'Denoising…',
    denoised: 'Denoised.', recording: 'Recording…',
    format: 'Download format', downloadFormat: 'Download in this format', fetchingFormat: 'Making the file…', formatReady: 'File ready:',
  },
};
