// npm run bench:frontend: latency of the Arabic normalizer per 200 characters
// of mixed text (numbers, dates, money, phones, URLs…), its exact-match rate
// on test/frontend/normalization-cases.json and on the held-out cases, and —
// with the diacritizer (SAWT_MODELS_DIR, else the bundled models/) — the
// whole front end a synthesis runs (normalize → lexicon → segment → diacritize
// → Latin words → phonemes, for sawt-mini and for sawt-hts incl. its labels)
// per 200 characters, on Arabic text and on the same text with Latin words
// (their added cost, with the Latin-word cache warm and cold), and the same on new text
// (the diacritizer's cache off) with the model's graph rewritten at load and as written.
// Results go to bench/results/. Run on a quiet machine: `nice` or load skews p95.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { TEXT, here, machine, pct, round, writeResults } from './harness.js';
import { normalizeArabic } from '../plugins/engine/dist/frontend/normalize/index.js';
import { TextFrontEnd } from '../plugins/engine/dist/frontend/index.js';
import { Diacritizer, EngineTextPipeline, LatinReader, loadDialects, BUILTIN_DIALECTS_DIR, textToLabels } from '../plugins/engine/dist/index.js';

/** Every segment of a text through the whole front end (the first part, then the rest), as `{ segments }`. */
async function segmentsOf(fe, input) {
  const { first, rest } = await fe.processInParts(input);
  return { segments: [...(await first), ...(rest ? await rest : [])] };
}

const RUNS = Number(process.env.BENCH_RUNS ?? 500);
const MIXED = [
  'وصل د. أحمد إلى الرياض في 15/3/2024 الساعة 10:30 صباحا، ودفع 250 ريالا مقابل 3 ليال في الفندق.',
  'ارتفع المؤشر بنسبة 2.5% ليغلق عند 11,250 نقطة، بينما بلغ سعر البرميل $85.40 في عام 2024.',
  'للاستفسار اتصلوا على 0501234567 أو راسلونا على info@sawt.ai أو زوروا https://www.sawt.ai/docs 😀',
  'يبدأ رمضان في 1/9/1445هـ ويستمر 30 يوما، وتقام الصلاة الساعة 7:45 مساء في القرن الـ21.',
  TEXT,
];
// Cut the mixed texts into ~200-character pieces (at spaces).
const pieces = [];
for (const t of MIXED) {
  let s = t;
  while (s.length < 200) s += ` ${MIXED[(pieces.length + s.length) % MIXED.length]}`;
  pieces.push(s.slice(0, s.lastIndexOf(' ', 200)));
}

// Exact-match rate on the reference table and on the held-out table.
const cases = JSON.parse(readFileSync(path.join(here, '..', 'test', 'frontend', 'normalization-cases.json'), 'utf8'));
const heldOut = JSON.parse(readFileSync(path.join(here, '..', 'test', 'frontend', 'normalization-heldout.json'), 'utf8'));
const heldOutMisses = heldOut.filter((c) => normalizeArabic(c.input) !== c.expected);
const misses = cases.filter((c) => normalizeArabic(c.input) !== c.expected);
const byCategory = {};
for (const c of cases) {
  const k = (byCategory[c.category] ??= { n: 0, ok: 0 });
  k.n++;
  if (!misses.includes(c)) k.ok++;
}

// Warm-up, then timed runs.
for (let i = 0; i < 50; i++) normalizeArabic(pieces[i % pieces.length]);
const perChar200 = [];
for (let i = 0; i < RUNS; i++) {
  const p = pieces[i % pieces.length];
  const t0 = performance.now();
  normalizeArabic(p);
  perChar200.push(((performance.now() - t0) * 200) / p.length);
}
// The whole-text front end (normalize + segmentation; per-segment stages are not registered here).
const fe = new TextFrontEnd();
const feTimes = [];
for (let i = 0; i < RUNS; i++) {
  const p = pieces[i % pieces.length];
  const t0 = performance.now();
  await segmentsOf(fe, { text: p, dialect: null });
  feTimes.push(((performance.now() - t0) * 200) / p.length);
}

// The whole front end of a synthesis, when the diacritizer is there.
const modelsDir = path.resolve(process.env.SAWT_MODELS_DIR ?? path.join(here, '../models'));
const FILES = { model: 'tashkeel/libtashkeel-2024-01-04.onnx', inputMap: 'tashkeel/input_id_map.json', targetMap: 'tashkeel/target_id_map.json' };
let full = null;
if (existsSync(path.join(modelsDir, FILES.model))) {
  const diacritizer = await Diacritizer.load(modelsDir, FILES);
  const dialects = loadDialects([BUILTIN_DIALECTS_DIR]);
  const pipeline = new EngineTextPipeline({ diacritizer, dialects });
  // Arabic pieces, and the same pieces with four Latin words in place of four Arabic ones (same length ± a few characters).
  const LATIN = ['Google', 'iPhone', 'GPS', 'الـAI', 'WhatsApp', 'Netflix', 'laptop', 'ChatGPT', 'بـYouTube', 'Samsung', 'smartphone', 'UNESCO'];
  const mixed = pieces.map((p, i) => {
    const words = p.split(' ');
    for (let k = 0; k < 4; k++) words[(k * 7 + 3) % words.length] = LATIN[(i * 4 + k) % LATIN.length];
    return words.join(' ');
  });
  const runFrontEnd = async (text, phonemes) => {
    const { segments } = await segmentsOf(pipeline.frontEnd, { text, dialect: 'fusha', diacritize: true, phonemes });
    if (phonemes === 'hts') for (const s of segments) textToLabels(s);
  };
  const time = async (texts, phonemes, before) => {
    for (let i = 0; i < 20; i++) await runFrontEnd(texts[i % texts.length], phonemes);
    const out = [];
    out.cpu = [];
    for (let i = 0; i < RUNS; i++) {
      const text = texts[i % texts.length];
      before?.();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await runFrontEnd(text, phonemes);
      out.push(((performance.now() - t0) * 200) / text.length);
      const c = process.cpuUsage(c0);
      // CPU time of the whole process (model threads included): what a busy machine does not inflate
      out.cpu.push((((c.user + c.system) / 1000) * 200) / text.length);
    }
    return out;
  };
  const stats = (a) => ({ p50: round(pct(a, 50), 3), p95: round(pct(a, 95), 3), cpuP50: round(pct(a.cpu, 50), 3), cpuP95: round(pct(a.cpu, 95), 3) });
  full = { note: 'ms per 200 characters (wall; cpu = process CPU time): normalize → lexicon → segment → diacritize → Latin words → phonemes (sawt-hts: + labels)' };
  for (const phonemes of ['espeak', 'hts']) {
    const arabic = await time(pieces, phonemes);
    const withLatin = await time(mixed, phonemes);
    // Cold: a fresh Latin-word cache before every run, so each Latin word costs an espeak-ng call.
    const cold = await time(mixed, phonemes, () => { pipeline.latin = new LatinReader(); });
    pipeline.latin = new LatinReader();
    full[phonemes === 'espeak' ? 'sawtMini' : 'sawtHts'] = {
      arabic: stats(arabic),
      mixedScript: stats(withLatin),
      mixedScriptColdCache: stats(cold),
      mixedScriptAddedP95: round(pct(withLatin, 95) - pct(arabic, 95), 3),
      mixedScriptColdAddedP95: round(pct(cold, 95) - pct(arabic, 95), 3),
      mixedScriptAddedCpuP95: round(pct(withLatin.cpu, 95) - pct(arabic.cpu, 95), 3),
      mixedScriptColdAddedCpuP95: round(pct(cold.cpu, 95) - pct(arabic.cpu, 95), 3),
    };
  }
  // The Latin-word stage alone on the mixed pieces (what the mixed-script path adds to the front end).
  const latinTimes = async (fresh) => {
    const wall = [];
    const cpu = [];
    for (let i = 0; i < RUNS; i++) {
      const text = mixed[i % mixed.length];
      const reader = fresh ? new LatinReader() : pipeline.latin;
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await reader.read(text, i % 2 ? 'hts' : 'espeak');
      wall.push(((performance.now() - t0) * 200) / text.length);
      const c = process.cpuUsage(c0);
      cpu.push((((c.user + c.system) / 1000) * 200) / text.length);
    }
    return { p50: round(pct(wall, 50), 3), p95: round(pct(wall, 95), 3), cpuP50: round(pct(cpu, 50), 3), cpuP95: round(pct(cpu, 95), 3) };
  };
  await latinTimes(false);
  full.latinStageAlone = { warmCache: await latinTimes(false), coldCache: await latinTimes(true), latinWordsPer200Chars: 4 };
  diacritizer.release();

  // New text: the pieces above repeat, so their segments come from the diacritizer's cache after
  // the first round. Here the cache is off (every run pays the model, as a text not seen before
  // does), with the model's graph rewritten at load (the default) and as written in the file, by
  // turns in this one process (their ratio holds on a busy machine). Latin words: warm cache.
  const variants = [];
  for (const rewriteGraph of [true, false]) {
    const d = await Diacritizer.load(modelsDir, FILES, { cacheEntries: 0, rewriteGraph });
    const p = new EngineTextPipeline({ diacritizer: d, dialects });
    variants.push({ name: rewriteGraph ? 'graphRewritten' : 'graphAsWritten', d, p, runs: { sawtMini: [], sawtHts: [], mixedScriptSawtMini: [] } });
  }
  const once = async (p, text, phonemes, into) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const { segments } = await segmentsOf(p.frontEnd, { text, dialect: 'fusha', diacritize: true, phonemes });
    if (phonemes === 'hts') for (const s of segments) textToLabels(s);
    into.push(((performance.now() - t0) * 200) / text.length);
    const c = process.cpuUsage(c0);
    (into.cpu ??= []).push((((c.user + c.system) / 1000) * 200) / text.length);
  };
  for (let i = 0; i < 10; i++) for (const v of variants) await once(v.p, pieces[i % pieces.length], 'espeak', []);
  for (let i = 0; i < RUNS; i++) {
    for (const v of variants) {
      await once(v.p, pieces[i % pieces.length], 'espeak', v.runs.sawtMini);
      await once(v.p, pieces[i % pieces.length], 'hts', v.runs.sawtHts);
      await once(v.p, mixed[i % mixed.length], 'espeak', v.runs.mixedScriptSawtMini);
    }
  }
  full.newText = { note: 'diacritizer cache off; graphRewritten = the default load (tashkeel-graph.ts), graphAsWritten = the file as it is; run by turns' };
  for (const v of variants) {
    full.newText[v.name] = Object.fromEntries(Object.entries(v.runs).map(([k, a]) => [k, stats(a)]));
    full.newText[v.name].mixedScriptAddedP95 = round(pct(v.runs.mixedScriptSawtMini, 95) - pct(v.runs.sawtMini, 95), 3);
    full.newText[v.name].mixedScriptAddedCpuP95 = round(pct(v.runs.mixedScriptSawtMini.cpu, 95) - pct(v.runs.sawtMini.cpu, 95), 3);
    v.d.release();
  }
  const [after, before] = variants.map((v) => v.runs.sawtMini);
  full.newText.rewrittenOverAsWritten = {
    sawtMini: { p50: round(pct(after, 50) / pct(before, 50), 3), p95: round(pct(after, 95) / pct(before, 95), 3), cpuP50: round(pct(after.cpu, 50) / pct(before.cpu, 50), 3), cpuP95: round(pct(after.cpu, 95) / pct(before.cpu, 95), 3) },
  };
}

writeResults('frontend', {
  date: new Date().toISOString(),
  machine: machine(),
  runs: RUNS,
  normalizeMsPer200Chars: { p50: round(pct(perChar200, 50), 3), p95: round(pct(perChar200, 95), 3), max: round(Math.max(...perChar200), 3) },
  frontEndMsPer200Chars: { p50: round(pct(feTimes, 50), 3), p95: round(pct(feTimes, 95), 3) },
  fullFrontEndMsPer200Chars: full ?? `diacritizer not found in ${modelsDir}`,
  exactMatch: { passed: cases.length - misses.length, total: cases.length, rate: round((cases.length - misses.length) / cases.length, 3), byCategory },
  heldOut: { passed: heldOut.length - heldOutMisses.length, total: heldOut.length, rate: round((heldOut.length - heldOutMisses.length) / heldOut.length, 3) },
  misses: misses.map((c) => ({ category: c.category, input: c.input, expected: c.expected, got: normalizeArabic(c.input) })),
});
