// npm run bench:ws: WebSocket text-to-speech latency of sawt-mini over loopback.
//  - flush: one text message of 200 characters with flush = true; time from the
//    send to the first audio message, for 1 session and for 10 concurrent sessions.
//  - stream: the same text in 3–8 character pieces every ~30 ms, as a language
//    model sends them, flush with the last piece; time from the first piece (and
//    from the piece ending the first sentence) to the first audio, and from the
//    flush to the isFinal message.
// The server runs in a child process (bench/server.js); results go to
// bench/results/ws-<date>.json and are printed. Bounded to well under 2 minutes.
import { TEXT, VOICES, machine, openWsSession, round, startBenchServer, summary, writeResults } from './harness.js';

const ROUNDS = Number(process.env.BENCH_WS_ROUNDS ?? 20);
const SESSIONS = Number(process.env.BENCH_WS_SESSIONS ?? 10);
const DEADLINE = Date.now() + 110_000;

const { port, key, setup, ask, stop } = await startBenchServer();
const url = `ws://127.0.0.1:${port}/api/v1/websocket/text-to-speech?x-api-key=${encodeURIComponent(key)}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const openSession = (voice_id) => openWsSession(url, voice_id);

const isAudio = (m) => typeof m.audio === 'string';
const isFinal = (m) => m.isFinal === true;

/** One flush round: send → first audio, and → isFinal. */
async function flushRound(s) {
  const first = s.next(isAudio);
  const final = s.next(isFinal);
  const t0 = performance.now();
  s.send({ type: 'text', text: TEXT, flush: true });
  const firstAt = await first;
  const finalAt = await final;
  return { firstAudioMs: firstAt - t0, finalMs: finalAt - t0 };
}

/** Text in 3–8 character pieces every ~30 ms, flush with the last one. */
async function streamRound(s, seed) {
  let rnd = seed;
  const rand = () => ((rnd = (rnd * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pieces = [];
  for (let i = 0; i < TEXT.length;) {
    const n = 3 + Math.floor(rand() * 6);
    pieces.push(TEXT.slice(i, i + n));
    i += n;
  }
  const firstP = s.next(isAudio);
  const finalP = s.next(isFinal);
  const t0 = performance.now();
  let flushAt = 0;
  let sentenceEndAt = 0;
  for (let i = 0; i < pieces.length; i++) {
    const last = i === pieces.length - 1;
    if (!sentenceEndAt && /[.!?؟]/u.test(pieces[i])) sentenceEndAt = performance.now();
    if (last) {
      // The final piece: what follows is timed from the flush.
      flushAt = performance.now();
      s.send({ type: 'text', text: pieces[i], flush: true });
    } else s.send({ type: 'text', text: pieces[i] });
    if (!last) await sleep(30);
  }
  const firstAudio = await firstP;
  const finalAt = await finalP;
  return { firstChunkToFirstAudioMs: firstAudio - t0, sentenceEndToFirstAudioMs: firstAudio - sentenceEndAt, flushToFinalMs: finalAt - flushAt, pieces: pieces.length };
}


async function scenario(nSessions, rounds, fn) {
  const sessions = await Promise.all(Array.from({ length: nSessions }, (_, i) => openSession(VOICES[i % VOICES.length])));
  await ask('eld-reset', 'eld-reset');
  const results = (await Promise.all(sessions.map(async (s, i) => {
    const out = [];
    for (let r = 0; r < rounds && Date.now() < DEADLINE; r++) {
      out.push(await fn(s, i * 1000 + r + 1));
      await sleep(20 + ((i * 7 + r * 13) % 40)); // de-synchronize sessions a little
    }
    return out;
  }))).flat();
  const eld = await ask('eld', 'eld');
  for (const s of sessions) s.ws.close();
  return { results, eventLoopDelayMs: { max: round(eld.maxMs), p99: round(eld.p99Ms), mean: round(eld.meanMs, 2) } };
}

// Warm-up.
await scenario(2, 3, flushRound);

const flush1 = await scenario(1, ROUNDS, flushRound);
const flushN = await scenario(SESSIONS, ROUNDS, flushRound);
const streamRounds = Math.max(2, Math.round(ROUNDS / 4));
const stream1 = await scenario(1, streamRounds, streamRound);
const streamN = await scenario(SESSIONS, streamRounds, streamRound);

const results = {
  date: new Date().toISOString(),
  model: 'sawt-mini',
  machine: machine(),
  frontEnd: { diacritizer: setup.diacritizer },
  text: { chars: [...TEXT].length },
  flush: {
    sessions1: { flushToFirstAudioMs: summary(flush1.results.map((r) => r.firstAudioMs)), flushToFinalMs: summary(flush1.results.map((r) => r.finalMs)), eventLoopDelayMs: flush1.eventLoopDelayMs },
    [`sessions${SESSIONS}`]: { flushToFirstAudioMs: summary(flushN.results.map((r) => r.firstAudioMs)), flushToFinalMs: summary(flushN.results.map((r) => r.finalMs)), eventLoopDelayMs: flushN.eventLoopDelayMs },
  },
  stream: {
    pieceChars: '3-8', pieceIntervalMs: 30, pieces: stream1.results[0]?.pieces,
    note: 'firstChunkToFirstAudio includes the wait for the first sentence end (character 36, about 6 pieces); sentenceEndToFirstAudio starts at the piece that carries it',
    sessions1: { firstChunkToFirstAudioMs: summary(stream1.results.map((r) => r.firstChunkToFirstAudioMs)), sentenceEndToFirstAudioMs: summary(stream1.results.map((r) => r.sentenceEndToFirstAudioMs)), flushToFinalMs: summary(stream1.results.map((r) => r.flushToFinalMs)), eventLoopDelayMs: stream1.eventLoopDelayMs },
    [`sessions${SESSIONS}`]: { firstChunkToFirstAudioMs: summary(streamN.results.map((r) => r.firstChunkToFirstAudioMs)), sentenceEndToFirstAudioMs: summary(streamN.results.map((r) => r.sentenceEndToFirstAudioMs)), flushToFinalMs: summary(streamN.results.map((r) => r.flushToFinalMs)), eventLoopDelayMs: streamN.eventLoopDelayMs },
  },
  targets: { flushToFirstAudioP50Ms: 40, sessions: SESSIONS, note: 'p50 flush → first audio with 10 sessions on 2 cores' },
};
results.targets.met = results.flush[`sessions${SESSIONS}`].flushToFirstAudioMs.p50 <= 40;
await stop();
writeResults('ws', results);
