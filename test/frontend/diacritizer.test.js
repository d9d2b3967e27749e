import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ENGINE, TASHKEEL, bundledModels, repoRoot } from './helpers.js';
import { tinyAddModel } from '../native/tiny-onnx.js';

const { Diacritizer, stripDiacritics, shaddaFirst, TextFrontEnd } = await import(ENGINE);

t.test('shadda goes before the short vowel for espeak-ng', async (t) => {
  t.equal(shaddaFirst('مُحَمَّدٌ'.normalize('NFC')), 'مُحَم\u0651\u064eدٌ');
  t.equal(stripDiacritics('قَالَ مُحَمَّدٌ'), 'قال محمد');
});

t.test('the libtashkeel model through the native ONNX path', async (t) => {
  const d = await Diacritizer.load(bundledModels, TASHKEEL);
  t.teardown(() => d.release());

  t.test('bare text gets full diacritics, shadda first', async (t) => {
    const out = await d.diacritize('ذهب الولد إلى المدرسة');
    t.equal(stripDiacritics(out), 'ذهب الولد إلى المدرسة', 'letters unchanged');
    t.equal(out, 'ذَهَبَ الْوَلَدُ إِلَى الْمَدْرَسَةِ');
    const m = await d.diacritize('قال محمد');
    t.match(m, /\u0651\u064e/u, 'shadda before fatha in محمد');
    t.notMatch(m, /[\u064b-\u0650]\u0651/u, 'no vowel before a shadda');
  });

  t.test('user marks are kept; partly diacritized words only get missing marks', async (t) => {
    // The model writes الْوَلَدُ; the user's kasra on the last letter wins.
    const out = await d.diacritize('ذهب الولدِ');
    t.match(out, /الْوَلَدِ$/u);
    // Shadda alone gets the predicted vowel after it.
    const s = await d.diacritize('محمّد');
    t.match(s, new RegExp('^مُحَم\u0651\u064eد', 'u'));
    // Fully diacritized text is returned as written (shadda order fixed), without running the model.
    const runs = d.stats.runs;
    t.equal(await d.diacritize('كَتَبَ الطَّالِبُ'), 'كَتَبَ الط\u0651\u064eالِبُ');
    t.equal(d.stats.runs, runs, 'model not run');
  });

  t.test('texts diacritized at once (runs shared, first segments first) read as each alone; a repeat is not run again', async (t) => {
    const texts = ['ذهب الولد إلى المدرسة', 'قال محمد', 'وصل القطار متأخرا اليوم', 'نقدم لكم أصواتا بلهجات متعددة', 'الطقس جميل في الصباح'];
    const plain = await Diacritizer.load(bundledModels, TASHKEEL, { cacheEntries: 0, maxConcurrent: 1 });
    t.teardown(() => plain.release());
    const alone = [];
    for (const text of texts) alone.push(await plain.diacritize(text));
    const runsAlone = plain.stats.runs;
    const together = await Promise.all(texts.map((text, i) => plain.diacritize(text, { urgent: i % 2 === 0 })));
    t.same(together, alone, 'the same marks');
    t.ok(plain.stats.runs - runsAlone < texts.length, `fewer model runs than texts (${plain.stats.runs - runsAlone} for ${texts.length})`);
    const cached = await Diacritizer.load(bundledModels, TASHKEEL, { cacheEntries: 2 });
    t.teardown(() => cached.release());
    await cached.diacritize(texts[0]);
    const runs = cached.stats.runs;
    t.equal(await cached.diacritize(texts[0]), alone[0], 'a repeated segment reads the same');
    t.equal(cached.stats.runs, runs, 'without running the model');
    await cached.diacritize(texts[1]);
    await cached.diacritize(texts[2]);
    await cached.diacritize(texts[0]);
    t.equal(cached.stats.runs, runs + 3, 'the cache is bounded: the oldest entry went');
  });

  t.test('tanween written on the alif is its letter\'s: كتاباً reads kita:ban, not kita:ba:', async (t) => {
    t.equal(await d.diacritize('كتاباً'), 'كِتَابًا');
    t.equal(await d.diacritize('كِتَابَاً'), 'كِتَابًا', 'a fatha before it gives way');
    t.match(await d.diacritize('شكرا جداً'), /جِد\u0651\u064bا$/u, 'the model\'s shadda joins the user\'s tanween');
    const [batched] = await d.diacritizeMany(['اشتريت 11 كتاباً']);
    t.notMatch(batched, /\u064bا\u064b/u, 'no double tanween');
    const { EngineTextPipeline } = await import(ENGINE);
    const p = new EngineTextPipeline({ diacritizer: d, dialects: new Map() });
    t.match(await p.run('phonemize', 'قرأت كتاباً'), /kit,a:ban/u, 'espeak reads the tanween');
    t.match(await p.run('phonemize', 'أحد عشر ريالاً'), /R'i:a:l,an|ri:a:l,an|a:lan/u, "the normalizer's own counted nouns too");
  });

  t.test('foreign characters and raw phonemes pass through; batches match single runs', async (t) => {
    t.equal(await d.diacritize('2024 Ali [[q\'a:l]]'), "2024 Ali [[q'a:l]]");
    const texts = ['ذهب الولد إلى المدرسة', 'قال', 'يسعدنا أن نقدم لكم خدمة صوت'];
    const single = await Promise.all(texts.map((x) => d.diacritize(x)));
    t.same(await d.diacritizeMany(texts), single, 'padding does not change the result');
  });

  t.test('segments cut from one sentence, read together (continues), read as the sentence itself', async (t) => {
    const sentence = 'أعلنت وزارة الصحة في بيان رسمي صدر صباح اليوم عن افتتاح ثلاثة مستشفيات جديدة في المناطق الشمالية';
    const words = sentence.split(' ');
    const [head, tail] = [words.slice(0, 7).join(' '), words.slice(7).join(' ')];
    const whole = await d.diacritize(sentence);
    const together = await d.diacritizeMany([head, tail, 'ذهب الولد إلى المدرسة.'], { continues: [false, true, false] });
    t.equal(together.slice(0, 2).join(' '), whole, 'the words on both sides of the cut have their context');
    t.equal(together[2], await d.diacritize('ذهب الولد إلى المدرسة.'), 'a text that does not continue is read alone');
  });

  t.test('a long text is cut at spaces and keeps every character', async (t) => {
    const long = Array.from({ length: 60 }, () => 'ذهب الولد إلى المدرسة').join(' ');
    const out = await d.diacritize(long);
    t.equal(stripDiacritics(out), long);
  });
});

t.test('the graph rewritten at load (shared position bias, MatMul for Einsum) diacritizes every test sentence as the file as written does', async (t) => {
  const lines = (f) => readFileSync(path.join(repoRoot, 'test/frontend', f), 'utf8').split('\n').map((s) => s.trim()).filter(Boolean).map(stripDiacritics);
  const texts = [...lines('diacritization-sentences.txt'), ...lines('diacritization-news.txt')];
  const load = (rewriteGraph) => Diacritizer.load(bundledModels, TASHKEEL, { cacheEntries: 0, maxConcurrent: 1, rewriteGraph });
  const [rewritten, asWritten] = await Promise.all([load(true), load(false)]);
  t.teardown(() => (rewritten.release(), asWritten.release()));
  t.same(rewritten.graphRewrite, { sharedPositionBias: 5, einsumToMatMul: 12 }, 'five layers use the first layer\'s position bias; 12 Einsum became MatMul');
  t.same(asWritten.graphRewrite, { sharedPositionBias: 0, einsumToMatMul: 0 });
  const one = async (d) => { const out = []; for (const x of texts) out.push(await d.diacritize(x)); return out; };
  t.same(await one(rewritten), await one(asWritten), `each of ${texts.length} sentences alone`);
  t.same(await rewritten.diacritizeMany(texts), await asWritten.diacritizeMany(texts), 'all in padded batches');
  t.same(await rewritten.diacritize(texts.join(' ')), await asWritten.diacritize(texts.join(' ')), 'one long text (cut into windows of 400)');
});

t.test('other models are loaded from their file as written: a foreign graph or bytes that are no model are refused as before', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sawt-tashkeel-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const f of ['input_id_map.json', 'target_id_map.json']) writeFileSync(path.join(dir, f), readFileSync(path.join(bundledModels, 'tashkeel', f)));
  writeFileSync(path.join(dir, 'tiny.onnx'), tinyAddModel());
  writeFileSync(path.join(dir, 'junk.onnx'), Buffer.from([0x0a, 0xff, 0xff, 0x01, 0x02]));
  const files = (model) => ({ model, inputMap: 'input_id_map.json', targetMap: 'target_id_map.json' });
  await t.rejects(Diacritizer.load(dir, files('tiny.onnx')), /tiny\.onnx is not a libtashkeel model \(inputs: X, K\)/);
  await t.rejects(Diacritizer.load(dir, files('junk.onnx')), { code: 'SAWT_ENGINE_ONNX', message: /junk\.onnx/ });
});

t.test('the front end runs stages in order, raw spans untouched', async (t) => {
  const seen = [];
  const fe = new TextFrontEnd()
    .addStage('a', (x) => (seen.push(['a', x]), x.replace('ب', 'ت')))
    .addStage('b', (x) => (seen.push(['b', x]), x), { perSegment: true });
  t.throws(() => fe.addStage('late', (x) => x), /before the per-segment/);
  const { first, rest } = await fe.processInParts({ text: 'ب [[s.a:d. x]] ب. جملة ثانية.', dialect: null });
  const segments = [...(await first), ...(rest ? await rest : [])];
  t.same(segments, ['ت [[s.a:d. x]] ت.', 'جملة ثانية.'], 'no segmentation inside [[ ]] (its dots and colon)');
  t.ok(segments[0].includes('[['), 'the raw span reaches the synthesizer as phoneme input');
  t.ok(seen.every(([, x]) => !x.includes('s.a:d.') || x.includes('[[')), 'whole-text stages never see raw span contents');
});
