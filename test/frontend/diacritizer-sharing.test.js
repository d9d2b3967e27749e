// The model reads letters only: one text read for several voices (dialects) costs one model run,
// and requests in flight with the same text share one run; each still reads as its dialect says.
// A live request does not wait for a long-form job's lower-priority run of the same text.
import t from 'tap';
import { ENGINE, TASHKEEL, bundledModels } from './helpers.js';

const { Diacritizer, loadDialects, BUILTIN_DIALECTS_DIR } = await import(ENGINE);
const dialects = loadDialects([BUILTIN_DIALECTS_DIR]);
const VOICE_DIALECTS = ['fusha', 'egyptian', 'emirati', 'najdi', 'hijazi', 'kuwaiti'].map((n) => dialects.get(n));
const TEXT = 'الولد عايز كتاب جديد من المكتبة الكبيرة';

t.test('one text on six dialects: one model run, each dialect\'s own reading', async (t) => {
  const alone = [];
  for (const dialect of VOICE_DIALECTS) {
    const fresh = await Diacritizer.load(bundledModels, TASHKEEL);
    alone.push(await fresh.diacritize(TEXT, { dialect }));
    fresh.release();
  }
  t.ok(new Set(alone).size >= 2, 'the dialects read the text differently (pausal forms)');
  const d = await Diacritizer.load(bundledModels, TASHKEEL);
  t.teardown(() => d.release());
  const together = await Promise.all(VOICE_DIALECTS.map((dialect) => d.diacritize(TEXT, { dialect, urgent: true })));
  t.same(together, alone, 'each dialect reads as when it was alone');
  t.equal(d.stats.runs, 1, 'six requests in flight at once shared one model run');
  const again = await Promise.all(VOICE_DIALECTS.map((dialect) => d.diacritize(TEXT, { dialect, before: '' })));
  t.same(again, alone);
  t.equal(d.stats.runs, 1, 'and later requests reuse it');
  await d.diacritize(TEXT, { before: 'قال' });
  t.equal(d.stats.runs, 2, 'another context is another reading: a run of its own');
});

t.test('a live request does not wait for a background run of the same text; a job reuses a live one', async (t) => {
  const d = await Diacritizer.load(bundledModels, TASHKEEL);
  t.teardown(() => d.release());
  const job = d.diacritize(TEXT, { background: true });
  const live = d.diacritize(TEXT, { dialect: VOICE_DIALECTS[1], urgent: true });
  await Promise.all([job, live]);
  t.equal(d.stats.runs, 2, 'the live request ran the model itself');
  const other = 'وصل القطار متأخرا اليوم بسبب الطقس';
  await d.diacritize(other, { urgent: true });
  await d.diacritize(other, { background: true, dialect: VOICE_DIALECTS[2] });
  t.equal(d.stats.runs, 3, 'the job used the live reading');
});
