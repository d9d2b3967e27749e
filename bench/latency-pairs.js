// npm run bench:latency-pairs -- --before DIR [--after DIR] [--pairs 3]: bench/latency.js on two
// built trees of Sawt in one sitting, runs interleaved (before, after, after, before, …) so that the
// machine's drift falls on both alike. For each figure, the median over the pairs of each run's p50
// and p95, and after ÷ before. DIR is a checkout with its dependencies installed and built
// (scripts/setup.sh); --after defaults to this tree. BENCH_LATENCY_RUNS defaults to http,ws10 here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { round, writeResults } from './harness.js';

const here = path.dirname(new URL(import.meta.url).pathname);
const { values } = parseArgs({ options: { before: { type: 'string' }, after: { type: 'string', default: path.resolve(here, '..') }, pairs: { type: 'string', default: '3' } } });
if (!values.before) throw new Error('usage: node bench/latency-pairs.js --before DIR [--after DIR] [--pairs N]');
const trees = { before: path.resolve(values.before), after: path.resolve(values.after) };
const pairs = Number(values.pairs);

/** One run of a tree's own bench/latency.js; its result file's runs. */
function run(tree) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'sawt-latency-pair-'));
  execFileSync(process.execPath, ['bench/latency.js'], {
    cwd: tree,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, BENCH_LATENCY_RUNS: process.env.BENCH_LATENCY_RUNS ?? 'http,ws10', SAWT_BENCH_RESULTS_DIR: out },
  });
  const [file] = readdirSync(out);
  return JSON.parse(readFileSync(path.join(out, file), 'utf8')).runs;
}

/** The figures compared: name → the { p50, p95 } summary inside a run's result. */
const FIGURES = {
  'http first byte sawt-mini': (r) => r['http-sequential-sawt-mini']?.firstByteMs,
  'http first byte sawt-hts': (r) => r['http-sequential-sawt-hts']?.firstByteMs,
  'http 8 streams first byte sawt-mini': (r) => r['http-8-streams-sawt-mini']?.firstByteMs,
  'http 8 streams first byte sawt-hts': (r) => r['http-8-streams-sawt-hts']?.firstByteMs,
  'ws 10 sessions flush to first audio': (r) => r['ws-10-together']?.flushToFirstAudioMs,
  'ws 10 sessions event loop': (r) => r['ws-10-together'] && { p50: r['ws-10-together'].eventLoopDelayMs.p99, p95: r['ws-10-together'].eventLoopDelayMs.max },
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const samples = { before: [], after: [] };
for (let i = 0; i < pairs; i++) {
  const order = i % 2 ? ['after', 'before'] : ['before', 'after'];
  for (const side of order) {
    console.error(`pair ${i + 1}/${pairs}: ${side} (${trees[side]})`);
    samples[side].push(run(trees[side]));
  }
}

const figures = {};
for (const [name, pick] of Object.entries(FIGURES)) {
  const of = (side, q) => median(samples[side].map((r) => pick(r)?.[q]).filter((x) => typeof x === 'number'));
  const row = {};
  for (const q of ['p50', 'p95']) {
    const before = of('before', q);
    const after = of('after', q);
    row[q] = { before: round(before), after: round(after), ratio: round(after / before, 3), runs: { before: samples.before.map((r) => pick(r)?.[q]), after: samples.after.map((r) => pick(r)?.[q]) } };
  }
  figures[name] = row;
}
const results = { date: new Date().toISOString(), pairs, trees, note: 'median over pairs of each run\'s p50 and p95 (event loop: p99 and max in ms)', figures };
writeResults('latency-pairs', results);
