// npm run bench: latency, real-time factor, throughput and event-loop delay of
// sawt-mini over loopback HTTP. Results go to bench/results/ as JSON.
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';

const here = path.dirname(fileURLToPath(import.meta.url));
const N = Number(process.env.BENCH_REQUESTS ?? 60);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
// 200 characters of Arabic (a typical assistant reply).
const TEXT = 'مرحبا بكم في خدمة صوت للنطق العربي. نقدم لكم أصواتا بلهجات متعددة، من الفصحى إلى المصرية والخليجية، مع زمن استجابة منخفض جدا. جربوا الخدمة اليوم، وشاركونا آراءكم لنحسنها أكثر في الأسابيع القادمة، ونعدكم بالمزيد.'.slice(0, 200);

const server = fork(path.join(here, 'server.js'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const [ready] = await once(server, 'message');
const ask = async (msg, type) => {
  server.send(msg);
  for (;;) {
    const [m] = await once(server, 'message');
    if (m.type === type) return m;
  }
};
const url = `http://127.0.0.1:${ready.port}/api/v1/text-to-speech/sawt-mini`;
const headers = { 'x-api-key': ready.key, 'content-type': 'application/json' };

async function streamOnce(voice_id = 'fusha-omar') {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ voice_id, text: TEXT, stability: 0.5, streaming: true }) });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const reader = res.body.getReader();
  let first = -1;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first < 0) first = performance.now() - t0;
    bytes += value.length;
  }
  const total = performance.now() - t0;
  return { firstByteMs: first, totalMs: total, audioSeconds: bytes / 2 / 24000 };
}

const pct = (arr, p) => {
  const s = [...arr].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const round = (x, d = 2) => Number(x.toFixed(d));

// Warm-up (espeak voice loading, JIT).
for (let i = 0; i < 5; i++) await streamOnce();

// 1. Sequential: time to first byte and real-time factor.
await ask('eld-reset', 'eld-reset');
const seq = [];
for (let i = 0; i < N; i++) seq.push(await streamOnce());
const seqEld = await ask('eld', 'eld');
const ttfb = seq.map((r) => r.firstByteMs);
const rtf = seq.map((r) => r.totalMs / 1000 / r.audioSeconds);

// 2. Concurrent streams: throughput and event-loop delay meanwhile.
await ask('eld-reset', 'eld-reset');
const voices = ['fusha-omar', 'fusha-layla', 'egyptian-karim', 'egyptian-nour', 'emirati-hamdan', 'najdi-noura', 'hijazi-reem', 'kuwaiti-bader'];
const t0 = performance.now();
const perStream = Math.max(4, Math.round(N / CONCURRENCY));
const conc = (await Promise.all(Array.from({ length: CONCURRENCY }, async (_, i) => {
  const out = [];
  for (let j = 0; j < perStream; j++) out.push(await streamOnce(voices[i % voices.length]));
  return out;
}))).flat();
const wall = (performance.now() - t0) / 1000;
const concEld = await ask('eld', 'eld');
const concTtfb = conc.map((r) => r.firstByteMs);

const results = {
  date: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  text: { chars: [...TEXT].length },
  sequential: {
    requests: N,
    firstByteMs: { p50: round(pct(ttfb, 50)), p95: round(pct(ttfb, 95)), max: round(Math.max(...ttfb)) },
    totalMs: { p50: round(pct(seq.map((r) => r.totalMs), 50)) },
    audioSeconds: round(seq[0].audioSeconds),
    realTimeFactor: { p50: round(pct(rtf, 50), 4), p95: round(pct(rtf, 95), 4) },
    eventLoopDelayMs: { max: round(seqEld.maxMs), p99: round(seqEld.p99Ms) },
  },
  concurrent: {
    streams: CONCURRENCY,
    requests: conc.length,
    wallSeconds: round(wall),
    requestsPerSecond: round(conc.length / wall),
    audioSecondsPerSecond: round(conc.reduce((s, r) => s + r.audioSeconds, 0) / wall),
    firstByteMs: { p50: round(pct(concTtfb, 50)), p95: round(pct(concTtfb, 95)) },
    eventLoopDelayMs: { max: round(concEld.maxMs), p99: round(concEld.p99Ms), mean: round(concEld.meanMs) },
  },
  targets: { firstByteP50Ms: 30, eventLoopDelayMaxMs: 20 },
};
server.send('stop');
await once(server, 'exit');
mkdirSync(path.join(here, 'results'), { recursive: true });
const file = path.join(here, 'results', `tts-http-${results.date.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify(results, null, 2));
console.log(JSON.stringify(results, null, 2));
console.log(`written to ${path.relative(process.cwd(), file)}`);
