// A sentence cut into segments (for streaming) is read as one sentence: the diacritizer sees the
// words before the cut, so the words after it take the case and mood the sentence gives them. Each
// sentence is written for this test (none from a benchmark); each expectation is the grammar's:
// the genitive after a preposition and its coordinated noun (Ryding §7.4, §8.1), the accusative noun
// of إنّ (Ryding §18.1), the subjunctive after أنْ (Ryding §37.2).
import t from 'tap';
import { ENGINE, TASHKEEL, bundledModels } from './helpers.js';

const { Diacritizer, EngineTextPipeline, stripDiacritics } = await import(ENGINE);

const d = await Diacritizer.load(bundledModels, TASHKEEL, { cacheEntries: 0 });
t.teardown(() => d.release());

const nfc = (s) => s.normalize('NFC');
const firstWord = (s) => nfc(s).split(/\s+/u)[0];

// [text before the cut, the segment after it, the segment's first word as the sentence reads it]
const CUTS = [
  ['وأعلنت الوزارة في بيانها الصادر صباح اليوم عن', 'خطة جديدة لدعم المزارعين في المناطق الريفية.', 'خُطَّةٍ', 'genitive after عن'],
  ['وقال المتحدث باسم الشركة إن', 'الأسعار سترتفع في الأسبوع المقبل.', 'الْأَسْعَارَ', 'the noun of إنّ is accusative'],
  ['ويأمل السكان أن', 'تنتهي أعمال الصيانة قبل حلول فصل الشتاء.', 'تَنْتَهِيَ', 'subjunctive after أنْ'],
];

t.test('a segment read with the text before it takes the case the sentence gives it', async (t) => {
  for (const [before, segment, expected, why] of CUTS) {
    const out = await d.diacritize(segment, { before });
    t.equal(stripDiacritics(out), segment, `only the segment's own letters come back (${why})`);
    t.equal(firstWord(out), nfc(expected), why);
    const [, whole] = await d.diacritizeMany([before, segment], { continues: [false, true] });
    t.equal(nfc(out), nfc(whole), `the same reading as the two read together in one run (${why})`);
  }
  // the coordinated noun after من…و is genitive too: والخبراءِ
  const out = await d.diacritize('الباحثين والخبراء من مختلف الدول العربية.', { before: 'وشارك في المؤتمر عدد من' });
  t.equal(nfc(out).split(/\s+/u)[1], nfc('وَالْخُبَرَاءِ'), 'a noun joined by و to a genitive is genitive');
});

t.test('the front end reads a long sentence across its segments, the first segment on its own', async (t) => {
  // segments of at most 47 characters: the sentence is cut after عن
  const pipeline = new EngineTextPipeline({ diacritizer: d, dialects: new Map(), segment: { maxChars: 47, firstMaxChars: 47 } });
  const text = `${CUTS[0][0]} ${CUTS[0][1]}`;
  const input = { text, dialect: null, phonemes: null };
  const { count, first, rest } = await pipeline.frontEnd.processInParts(input);
  t.ok(count >= 2 && rest, 'the sentence is cut into segments');
  const [head] = await first;
  t.equal(nfc(head), nfc(await d.diacritize(stripDiacritics(head))), 'the first segment is read alone: it waits for nothing after it');
  const tail = await rest;
  const cutAt = tail.findIndex((s) => stripDiacritics(s).includes('خطة'));
  t.ok(cutAt >= 0, 'the words after the cut are in a later segment');
  t.equal(firstWord(tail[cutAt]), nfc('خُطَّةٍ'), 'streaming: the segment after the cut reads خطة as the genitive after عن');
  // sawt text diacritize (runMany): the segments of the sentence in one batched run, read together
  const [batched] = await pipeline.runMany('diacritize', [text]);
  t.match(nfc(batched), new RegExp(`عَنْ ${nfc('خُطَّةٍ')}`, 'u'), 'batched: the same genitive');
  // a segment after a full stop starts a sentence of its own: no context from the one before
  const two = await pipeline.runMany('diacritize', ['ذهب الطالب إلى المدرسة في الصباح الباكر مع أخيه الأصغر. خطة العمل جاهزة الآن.']);
  t.match(nfc(two[0]), new RegExp(`\\. ${nfc('خُطَّةُ')}`, 'u'), 'a new sentence begins in the nominative');
});
