// npm run bench:latency: first audio under load, as users run it (diacritizer on, the default with
// the bundled models; loopback). The server runs in a child process (bench/server.js); the worst
// event-loop delay of the server process is read over IPC after every run.
//  - http: first byte of a streaming request of 200 characters, sequential (sawt-mini, sawt-hts),
//    then 8 concurrent streams of each (p50/p95; sawt-mini's audio seconds per second).
//  - ws10: 10 sessions flush a 175-character text at the same moment (rounds), flush → first audio;
//    one round before them warms the process up (reported apart).
//  - ws30: 30 sessions flush back to back (the next flush as soon as isFinal came) for 30 s:
//    p50/p95 flush → first audio, each session's worst and its count of flushes (starvation).
// Options (environment): BENCH_LATENCY_RUNS=http,ws10,ws30 (which), BENCH_LATENCY_SEQ (sequential
// requests, 20), BENCH_LATENCY_ROUNDS (ws10 rounds, 10), BENCH_LATENCY_SECONDS (ws30, 30),
// BENCH_LATENCY_WS_CHARS (characters of the WebSocket text, 175),
// BENCH_LATENCY_PER_STREAM (requests per concurrent stream, 3), BENCH_LATENCY_TAG (name suffix
// of the result file, e.g. "before"), BENCH_STALL_MS (the server's JavaScript thread held that
// long every 500 ms: how fast the event loop recovers after a pause). Each figure carries the
// machine's load average when taken.
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { TEXT, VOICES, concurrentFigures, concurrentStreams, eventLoopFigures, machine, openWsSession, round, startBenchServer, stealMs, streamTts, summary, writeResults } from './harness.js';

const env = (name, dflt) => Number(process.env[name] ?? dflt);
const RUNS = new Set((process.env.BENCH_LATENCY_RUNS ?? 'http,ws10,ws30').split(','));
const SEQ = env('BENCH_LATENCY_SEQ', 20);
const ROUNDS = env('BENCH_LATENCY_ROUNDS', 10);
const SECONDS = env('BENCH_LATENCY_SECONDS', 30);
const PER_STREAM = env('BENCH_LATENCY_PER_STREAM', 3);
const WS_TEXT = TEXT.slice(0, env('BENCH_LATENCY_WS_CHARS', 175));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () => os.loadavg().map((x) => round(x));

const { port, key, setup, ask, stop } = await startBenchServer();
const url = `ws://127.0.0.1:${port}/api/v1/websocket/text-to-speech?x-api-key=${encodeURIComponent(key)}`;

/** Runs fn with the server's event-loop delay reset before and read after; the figure gets eventLoopDelayMs, loadAverage and machineStealMs (stealMs in harness.js). */
async function measured(fn) {
  await ask('eld-reset', 'eld-reset');
  const loadBefore = load();
  const stealBefore = stealMs();
  const client = monitorEventLoopDelay({ resolution: 1 });
  client.enable();
  const figure = await fn();
  client.disable();
  const eld = await ask('eld', 'eld');
  return {
    ...figure, eventLoopDelayMs: eventLoopFigures(eld),
    // This process's own delay: a message the server sent waits this long, at worst, to be timed here.
    clientEventLoopDelayMs: { max: round(client.max / 1e6), p99: round(client.percentile(99) / 1e6) },
    loadAverage: { before: loadBefore, after: load() },
    ...(stealBefore !== null && { machineStealMs: stealMs() - stealBefore }),
  };
}

const openSessions = (n) => Promise.all(Array.from({ length: n }, (_, i) => openWsSession(url, VOICES[i % VOICES.length])));

/** One flush of WS_TEXT: flush → first audio and → isFinal (ms). */
async function flush(s) {
  const first = s.next((m) => typeof m.audio === 'string');
  const final = s.next((m) => m.isFinal === true);
  const t0 = performance.now();
  s.send({ type: 'text', text: WS_TEXT, flush: true });
  const firstAt = await first;
  const finalAt = await final;
  return { firstAudioMs: firstAt - t0, finalMs: finalAt - t0 };
}

const results = { date: new Date().toISOString(), tag: process.env.BENCH_LATENCY_TAG ?? null, stallMs: Number(process.env.BENCH_STALL_MS ?? 0), machine: machine(), frontEnd: { diacritizer: setup.diacritizer }, runs: {} };
if (!setup.diacritizer) console.error('warning: the diacritizer did not load; figures are without it');

// Warm-up: models load on first use.
const voiceOf = (model, i = 0) => (model === 'sawt-hts' ? (i % 2 ? 'fusha-sami' : 'fusha-ziad') : VOICES[i % VOICES.length]);
for (const model of ['sawt-mini', 'sawt-hts']) for (let i = 0; i < 3; i++) await streamTts({ port, key, model, voice_id: voiceOf(model) });

if (RUNS.has('http')) {
  for (const model of ['sawt-mini', 'sawt-hts']) {
    results.runs[`http-sequential-${model}`] = await measured(async () => {
      const firsts = [];
      for (let i = 0; i < SEQ; i++) firsts.push((await streamTts({ port, key, model, voice_id: voiceOf(model) })).firstByteMs);
      return { chars: TEXT.length, firstByteMs: summary(firsts) };
    });
    results.runs[`http-8-streams-${model}`] = await measured(async () => {
      const c = concurrentStreams(8, PER_STREAM, (i) => streamTts({ port, key, model, voice_id: voiceOf(model, i) }));
      const f = concurrentFigures(8, await c);
      return { firstByteMs: f.firstByteMs, audioSecondsPerSecond: f.audioSecondsPerSecond, requests: f.requests, wallSeconds: f.wallSeconds };
    });
  }
}

if (RUNS.has('ws10')) {
  const sessions = await openSessions(10);
  // One round first, not counted: the process's first WebSocket flushes (code compiled on first
  // use, each espeak instance's first voices). Its first-audio times are reported apart.
  const warmUp = (await Promise.all(sessions.map(flush))).map((o) => o.firstAudioMs);
  await sleep(50);
  results.runs['ws-10-together'] = await measured(async () => {
    const firsts = [];
    const finals = [];
    for (let r = 0; r < ROUNDS; r++) {
      const out = await Promise.all(sessions.map(flush));
      for (const o of out) firsts.push(o.firstAudioMs), finals.push(o.finalMs);
      await sleep(50);
    }
    return { sessions: 10, chars: WS_TEXT.length, rounds: ROUNDS, flushToFirstAudioMs: summary(firsts), flushToFinalMs: summary(finals), warmUpRoundFirstAudioMs: summary(warmUp) };
  });
  for (const s of sessions) s.ws.close();
}

if (RUNS.has('ws30')) {
  const sessions = await openSessions(30);
  results.runs['ws-30-back-to-back'] = await measured(async () => {
    const end = performance.now() + SECONDS * 1000;
    const per = await Promise.all(sessions.map(async (s) => {
      const firsts = [];
      while (performance.now() < end) firsts.push((await flush(s)).firstAudioMs);
      return firsts;
    }));
    const all = per.flat();
    const counts = per.map((f) => f.length);
    const worst = per.map((f) => Math.max(...f));
    return {
      sessions: 30, seconds: SECONDS, chars: WS_TEXT.length,
      flushToFirstAudioMs: summary(all),
      perSession: { worstMs: summary(worst), flushes: { min: Math.min(...counts), max: Math.max(...counts), total: all.length } },
      // Starved: a session that got less than half the median count of flushes, or whose worst wait passed 2 s.
      starved: per.filter((f, i) => f.length < summary(counts).p50 / 2 || worst[i] > 2000).length,
    };
  });
  for (const s of sessions) s.ws.close();
}

results.targets = {
  'ws-10-together p50/p95 ms': [40, 100], 'ws-30-back-to-back p95 ms': 300,
  'http-sequential-sawt-mini p50 ms': 15, 'http-sequential-sawt-hts p50 ms': 50, 'event loop max ms': 20,
};
await stop();
writeResults(`latency${results.tag ? `-${results.tag}` : ''}`, results);
