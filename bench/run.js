// npm run bench: latency, real-time factor, throughput and event-loop delay of
// sawt-mini over loopback HTTP. Results go to bench/results/ as JSON.
import { TEXT, VOICES, concurrentFigures, concurrentStreams, machine, pct, round, sequentialFigures, startBenchServer, streamTts, writeResults } from './harness.js';

const N = Number(process.env.BENCH_REQUESTS ?? 60);
// Concurrency levels (comma-separated): throughput against concurrency; the last is reported as `concurrent`.
const LEVELS = String(process.env.BENCH_CONCURRENCY ?? '1,4,8').split(',').map(Number).filter((n) => n > 0);

const { port, key, setup, ask, stop } = await startBenchServer();
const streamOnce = (voice_id) => streamTts({ port, key, voice_id });

// Warm-up (espeak voice loading, JIT).
for (let i = 0; i < 5; i++) await streamOnce();

// 1. Sequential: time to first byte and real-time factor.
await ask('eld-reset', 'eld-reset');
const seq = [];
for (let i = 0; i < N; i++) seq.push(await streamOnce());
const seqEld = await ask('eld', 'eld');

// 2. Concurrent streams at each level: throughput and event-loop delay meanwhile.
const levels = [];
for (const streams of LEVELS) {
  await ask('eld-reset', 'eld-reset');
  const perStream = Math.max(4, Math.round(N / streams));
  const conc = await concurrentStreams(streams, perStream, (i) => streamOnce(VOICES[i % VOICES.length]));
  const eld = await ask('eld', 'eld');
  levels.push({ ...concurrentFigures(streams, conc), eventLoopDelayMs: { max: round(eld.maxMs), p99: round(eld.p99Ms), mean: round(eld.meanMs) } });
}

const results = {
  date: new Date().toISOString(),
  machine: machine(),
  model: 'sawt-mini',
  frontEnd: { diacritizer: setup.diacritizer },
  text: { chars: [...TEXT].length },
  sequential: {
    ...sequentialFigures(seq),
    totalMs: { p50: round(pct(seq.map((r) => r.totalMs), 50)) },
    eventLoopDelayMs: { max: round(seqEld.maxMs), p99: round(seqEld.p99Ms) },
  },
  concurrent: levels.at(-1),
  concurrency: levels,
  targets: { firstByteP50Ms: 30, eventLoopDelayMaxMs: 20 },
};
await stop();
writeResults('tts-http', results);
