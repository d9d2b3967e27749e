// npm run bench:text-batch: lines per second of `sawt text normalize|diacritize|phonemize --file`
// (one process, the diacritizer batched) over BENCH_LINES lines (default 2000) of MSA news and
// everyday sentences with numbers, dates and Latin words; process start-up included. The CLI finds
// the diacritizer as the server does (SAWT_MODELS_DIR, else the bundled models/). Results go to bench/results/.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { here, machine, round, writeResults } from './harness.js';

const LINES = Number(process.env.BENCH_LINES ?? 2000);
const strip = (s) => s.replace(/[\u064b-\u0652]/gu, '');
const source = ['diacritization-sentences.txt', 'diacritization-news.txt']
  .flatMap((f) => readFileSync(path.join(here, '../test/frontend', f), 'utf8').split('\n'))
  .filter(Boolean)
  .map(strip);
source.push('حمّلت تطبيق WhatsApp على iPhone يوم 15/3/2024 ودفعت $4.99', 'ارتفع المؤشر بنسبة 2.5% ليغلق عند 11,250 نقطة في القرن 21', 'نظام GPS يعمل مع الـAI في 3 دول');
const lines = Array.from({ length: LINES }, (_, i) => source[i % source.length]);
const dir = mkdtempSync(path.join(tmpdir(), 'sawt-bench-batch-'));
const file = path.join(dir, 'lines.txt');
writeFileSync(file, `${lines.join('\n')}\n`);
const chars = lines.reduce((n, l) => n + l.length, 0);

const results = {};
for (const stage of ['normalize', 'diacritize', 'phonemize']) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [path.join(here, '../packages/cli/bin/sawt.js'), 'text', stage, '--file', file], {
    env: { ...process.env, SAWT_DATA_DIR: dir },
    maxBuffer: 1 << 28,
    encoding: 'utf8',
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`sawt text ${stage} failed: ${r.stderr}`);
  const outLines = r.stdout.split('\n').length - 1;
  if (outLines !== LINES) throw new Error(`sawt text ${stage}: ${outLines} lines out for ${LINES} in`);
  results[stage] = { seconds: round(seconds, 2), linesPerSecond: round(LINES / seconds, 1), charsPerSecond: Math.round(chars / seconds) };
}
rmSync(dir, { recursive: true, force: true });
writeResults('text-batch', { date: new Date().toISOString(), machine: machine(), lines: LINES, avgLineChars: round(chars / LINES, 1), ...results });
