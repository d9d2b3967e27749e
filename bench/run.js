// npm run bench: latency, real-time factor, throughput and event-loop delay of
// sawt-mini over loopback HTTP. Results go to bench/results/ as JSON.
import { TEXT, VOICES, machine, pct, round, startBenchServer, streamTts, summary, writeResults } from './harness.js';

const N = Number(process.env.BENCH_REQUESTS ?? 60);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

const { port, key, ask, stop } = await startBenchServer();
const streamOnce = (voice_id) => streamTts({ port, key, voice_id });

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
const t0 = performance.now();
const perStream = Math.max(4, Math.round(N / CONCURRENCY));
const conc = (await Promise.all(Array.from({ length: CONCURRENCY }, async (_, i) => {
  const out = [];
  for (let j = 0; j < perStream; j++) out.push(await streamOnce(VOICES[i % VOICES.length]));
  return out;
}))).flat();
const wall = (performance.now() - t0) / 1000;
const concEld = await ask('eld', 'eld');
const concTtfb = conc.map((r) => r.firstByteMs);

const results = {
  date: new Date().toISOString(),
  machine: machine(),
  text: { chars: [...TEXT].length },
  sequential: {
    requests: N,
    firstByteMs: summary(ttfb),
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
    firstByteMs: summary(concTtfb),
    eventLoopDelayMs: { max: round(concEld.maxMs), p99: round(concEld.p99Ms), mean: round(concEld.meanMs) },
  },
  targets: { firstByteP50Ms: 30, eventLoopDelayMaxMs: 20 },
};
await stop();
writeResults('tts-http', results);
