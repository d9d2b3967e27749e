// A long-form job's text (FrontEndInput.background) goes through the diacritizer in RunQueue's
// background lane: its model runs go to the addon's background ONNX thread ("sawt-onnx-bg", niced
// 12 above the JavaScript thread), not to the two run slots live requests use. The reading is the
// same either way.
import t from 'tap';
import { ENGINE, TASHKEEL, bundledModels } from './helpers.js';
import { threadsNamed } from '../helpers/threads.js';

const { Diacritizer, EngineTextPipeline } = await import(ENGINE);

const d = await Diacritizer.load(bundledModels, TASHKEEL, { cacheEntries: 0 });
t.teardown(() => d.release());

const TEXT = 'وأعلنت الوزارة في بيانها الصادر صباح اليوم عن خطة جديدة لدعم المزارعين. ويأمل السكان أن تنتهي أعمال الصيانة قبل حلول فصل الشتاء.';

t.test('a job\'s segments run on the background ONNX thread; a live request\'s on the live ones; the same text', async (t) => {
  const pipeline = new EngineTextPipeline({ diacritizer: d, dialects: new Map(), segment: { maxChars: 80, firstMaxChars: 80 } });
  const read = async (extra) => {
    const { count, first, rest } = await pipeline.frontEnd.processInParts({ text: TEXT, ...extra });
    return { count, segments: [...(await first), ...((await rest) ?? [])] };
  };
  t.same(threadsNamed('sawt-onnx-bg'), [], 'no background thread before background work');
  t.same(threadsNamed('sawt-onnx'), [], 'no live run thread yet');
  const job = await read({ urgent: false, background: true });
  t.ok(job.count >= 2, `the text is cut into segments (${job.count})`);
  t.equal(threadsNamed('sawt-onnx-bg').length, 1, 'the job\'s runs started the background thread');
  t.same(threadsNamed('sawt-onnx'), [], 'and no live run thread: they took no live slot');
  const live = await read({});
  t.ok(threadsNamed('sawt-onnx').length >= 1, 'a live request runs on the live run threads'); // (the second may not have named itself yet)
  t.same(job.segments, live.segments, 'the same diacritized segments either way');
});
