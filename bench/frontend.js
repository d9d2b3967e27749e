// npm run bench:frontend: latency of the Arabic normalizer per 200 characters
// of mixed text (numbers, dates, money, phones, URLs…) and its exact-match rate
// on test/frontend/normalization-cases.json. Results go to bench/results/.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TEXT, here, machine, pct, round, writeResults } from './harness.js';
import { normalizeArabic } from '../plugins/engine/dist/frontend/normalize/index.js';
import { TextFrontEnd } from '../plugins/engine/dist/frontend/index.js';

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

// Exact-match rate on the reference table.
const cases = JSON.parse(readFileSync(path.join(here, '..', 'test', 'frontend', 'normalization-cases.json'), 'utf8'));
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
  await fe.process({ text: p, dialect: null });
  feTimes.push(((performance.now() - t0) * 200) / p.length);
}

writeResults('frontend', {
  date: new Date().toISOString(),
  machine: machine(),
  runs: RUNS,
  normalizeMsPer200Chars: { p50: round(pct(perChar200, 50), 3), p95: round(pct(perChar200, 95), 3), max: round(Math.max(...perChar200), 3) },
  frontEndMsPer200Chars: { p50: round(pct(feTimes, 50), 3), p95: round(pct(feTimes, 95), 3) },
  exactMatch: { passed: cases.length - misses.length, total: cases.length, rate: round((cases.length - misses.length) / cases.length, 3), byCategory },
  misses: misses.map((c) => ({ category: c.category, input: c.input, expected: c.expected, got: normalizeArabic(c.input) })),
});
