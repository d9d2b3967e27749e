// npm run bench:report: the dated JSON results in bench/results/ as one self-contained
// HTML page (uPlot and the data inlined; opens from disk, fetches nothing): first-audio
// latency distributions per model and transport, real-time factor across runs,
// throughput against concurrency, event-loop delay, RSS over time, and two runs side
// by side with the ratio of each figure.
//   npm run bench:report [-- --dir DIR] [--out FILE] [--compare A.json B.json]
// Default comparison: the two latest runs of the kind run most often.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : undefined; };
const dir = path.resolve(arg('--dir') ?? process.env.SAWT_BENCH_RESULTS_DIR ?? path.join(here, 'results'));
const out = path.resolve(arg('--out') ?? path.join(dir, 'report.html'));

/** Every result file: its kind (the name before the date), date and figures. */
export function loadRuns(folder) {
  return readdirSync(folder).filter((f) => f.endsWith('.json')).flatMap((file) => {
    try {
      const data = JSON.parse(readFileSync(path.join(folder, file), 'utf8'));
      const kind = file.replace(/-\d{4}-\d\d-\d\dT.*$/, '').replace(/\.json$/, '');
      const date = data.date ?? file.match(/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d/)?.[0] ?? null;
      return date ? [{ file, kind, date: String(date), data }] : [];
    } catch {
      return [];
    }
  }).sort((a, b) => a.date.localeCompare(b.date));
}

const latest = (runs, kind) => runs.filter((r) => r.kind === kind).at(-1);
const t = (d) => Date.parse(d.replace(/T(\d\d)-(\d\d)-(\d\d)-(\d+)Z?$/, 'T$1:$2:$3.$4Z')) / 1000;

/** A latency figure as a distribution: its samples, or its percentiles when the run kept none. */
function dist(label, fig) {
  if (!fig || typeof fig.p50 !== 'number') return null;
  return { label, samples: Array.isArray(fig.samples) ? fig.samples : null, p50: fig.p50, p95: fig.p95, max: fig.max };
}

export function reportData(runs, compare) {
  const latency = [];
  const http = latest(runs, 'tts-http');
  if (http) latency.push(dist(`${http.data.model ?? 'sawt-mini'} · HTTP stream (first byte)`, http.data.sequential?.firstByteMs));
  const hts = latest(runs, 'hts');
  if (hts) latency.push(dist('sawt-hts · HTTP stream (first byte)', hts.data.sequential?.firstByteMs));
  const ws = latest(runs, 'ws');
  if (ws) latency.push(dist(`${ws.data.model ?? 'sawt-mini'} · WebSocket (flush → first audio)`, ws.data.flush?.sessions1?.flushToFirstAudioMs));
  const client = latest(runs, 'client');
  if (client) {
    latency.push(dist('sawt-mini · HTTP via @sawt/client', client.data.client?.firstByteMs));
    latency.push(dist('sawt-mini · HTTP raw fetch', client.data.rawFetch?.firstByteMs));
  }
  const rtf = ['tts-http', 'hts'].map((kind) => ({
    label: kind === 'hts' ? 'sawt-hts' : 'sawt-mini',
    points: runs.filter((r) => r.kind === kind && r.data.sequential?.realTimeFactor).map((r) => [t(r.date), r.data.sequential.realTimeFactor.p50]),
  })).filter((s) => s.points.length);
  const throughput = http ? (http.data.concurrency ?? [http.data.concurrent]).filter(Boolean).map((c) => [c.streams, c.requestsPerSecond, c.audioSecondsPerSecond]) : [];
  const eld = [];
  for (const r of runs) {
    if (r.kind === 'tts-http') {
      eld.push({ series: 'HTTP sequential', x: t(r.date), y: r.data.sequential?.eventLoopDelayMs?.max });
      eld.push({ series: 'HTTP concurrent', x: t(r.date), y: r.data.concurrent?.eventLoopDelayMs?.max });
    }
    if (r.kind === 'ws') for (const [k, v] of Object.entries(r.data.flush ?? {})) eld.push({ series: `WebSocket ${k}`, x: t(r.date), y: v.eventLoopDelayMs?.max });
  }
  const soak = latest(runs, 'soak');
  const rss = soak?.data.rss?.samples?.filter((p) => p.mb !== null).map((p) => [p.t, p.mb]) ?? [];
  return {
    generated: new Date().toISOString(),
    runs: runs.map((r) => ({ file: r.file, kind: r.kind, date: r.date })),
    latency: latency.filter(Boolean), rtf, throughput, eld: eld.filter((p) => typeof p.y === 'number'), rss,
    rssFile: soak?.file ?? null,
    compare: compare ? { a: compare[0].file, b: compare[1].file, rows: compareRows(compare[0].data, compare[1].data) } : null,
  };
}

/** Every numeric figure of two runs (dotted paths, sample lists left out) with b / a. */
export function compareRows(a, b) {
  const flat = (o, prefix = '', acc = {}) => {
    for (const [k, v] of Object.entries(o ?? {})) {
      const p = prefix ? `${prefix}.${k}` : k;
      if (typeof v === 'number') acc[p] = v;
      else if (v && typeof v === 'object' && !Array.isArray(v)) flat(v, p, acc);
      else if (Array.isArray(v) && v.every((x) => x && typeof x === 'object')) v.forEach((x, i) => flat(x, `${p}[${i}]`, acc));
    }
    return acc;
  };
  const fa = flat(a);
  const fb = flat(b);
  return [...new Set([...Object.keys(fa), ...Object.keys(fb)])].filter((k) => !k.startsWith('machine.'))
    .map((k) => [k, fa[k] ?? null, fb[k] ?? null, fa[k] && fb[k] !== undefined ? Number((fb[k] / fa[k]).toFixed(3)) : null]);
}

function chooseCompare(runs) {
  const a = arg('--compare');
  if (a) {
    const i = process.argv.indexOf('--compare');
    const pick = (f) => runs.find((r) => r.file === path.basename(f)) ?? (() => { throw new Error(`no result ${f} in ${dir}`); })();
    return [pick(process.argv[i + 1]), pick(process.argv[i + 2])];
  }
  const counts = {};
  for (const r of runs) counts[r.kind] = (counts[r.kind] ?? 0) + 1;
  const kind = Object.entries(counts).filter(([, n]) => n >= 2).sort((x, y) => y[1] - x[1])[0]?.[0];
  return kind ? runs.filter((r) => r.kind === kind).slice(-2) : null;
}

export function renderHtml(data) {
  const require = createRequire(import.meta.url);
  const uplotJs = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
  const uplotCss = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  const page = readFileSync(path.join(here, 'report-page.js'), 'utf8');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sawt benchmark report</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${uplotCss}
body{font-family:system-ui,sans-serif;max-width:1100px;margin:0 auto;padding:1rem;color:#1d2433}
section{margin:1.5rem 0}.empty{color:#888}table{border-collapse:collapse;font-size:.85rem}
td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:right}td:first-child,th:first-child{text-align:left}
.up{color:#b00020}.down{color:#0a7d32}</style></head>
<body><h1>Sawt benchmark report</h1><p id="meta"></p>
<section id="latency"><h2>First-audio latency (cumulative distribution)</h2></section>
<section id="rtf"><h2>Real-time factor (p50, per run)</h2></section>
<section id="throughput"><h2>Throughput against concurrency (latest HTTP run)</h2></section>
<section id="eld"><h2>Event-loop delay (max, per run)</h2></section>
<section id="rss"><h2>RSS over time (latest soak)</h2></section>
<section id="compare"><h2>Two runs side by side</h2></section>
<script type="application/json" id="data">${json}</script>
<script>${uplotJs}</script>
<script>${page}</script>
</body></html>
`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const runs = loadRuns(dir);
  const data = reportData(runs, chooseCompare(runs));
  writeFileSync(out, renderHtml(data));
  console.log(`${runs.length} results from ${path.relative(process.cwd(), dir) || '.'} → ${path.relative(process.cwd(), out)}`);
}
