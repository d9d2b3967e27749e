// node bench/jobs-book.js: long-form jobs (issue 33) measured end to end, the server in its own
// process (bench/jobs-server.js, a fresh data directory, an enterprise account).
//  - book: a book of BENCH_JOBS_CHARS characters (default 200,000; Markdown chapters of news-style
//    Arabic) submitted as one job on sawt-hts, polled to its end: wall time, audio seconds, the
//    real-time factor (wall / audio), characters per second, the server's peak RSS, the database
//    and the other files of its data directory (peak while it ran, and after), the audio's size
//    and its duration as ffprobe reads it.
//  - latency: live first audio on an idle server and with 2 jobs running, side by side, in
//    BENCH_JOBS_PAIRS pairs (the order within a pair alternates): BENCH_JOBS_LATENCY_N sequential
//    streaming HTTP requests (first byte) and as many WebSocket flushes (flush → first audio) of
//    200/175 characters on BENCH_JOBS_LIVE_MODEL (sawt-mini); loaded/idle ratios of p50 and p95
//    (issue 33's bar: within 20 %), and how fast the 2 jobs rendered meanwhile.
//  - steady: what jobs keep of the machine under steady live load (issue 33: at least a quarter).
//    Three sides of BENCH_JOBS_STEADY_S seconds each: 2 jobs alone, 2 jobs beside the live load,
//    the live load alone. The live load: BENCH_JOBS_LISTENERS listeners on BENCH_JOBS_LIVE_MODEL,
//    each asking for the next 200 characters (streamed) once the last answer's audio has played.
//    Reported: the jobs' characters per second on each side and their ratio, the CPU share (of
//    all cores) of the server's job threads (sawt-hts-bg, sawt-onnx-bg) and of the whole server
//    (/proc/<pid>/task/*/stat), and the live first byte p50/p95 with and without the jobs.
// Options (environment): BENCH_JOBS_RUNS=book,latency, BENCH_JOBS_CHARS (200000), BENCH_JOBS_MODEL
// (sawt-hts), BENCH_JOBS_VOICE (fusha-ziad), BENCH_JOBS_FORMAT (mp3_44100_64), BENCH_JOBS_LOAD_CHARS
// (characters of each background job, 40000: it must outlast a side), BENCH_JOBS_LATENCY_N (30),
// BENCH_JOBS_PAIRS (2), BENCH_JOBS_OPTIONS (JSON options of @sawt/plugin-jobs, e.g. {"runners":2}),
// BENCH_JOBS_NOTE (a note kept in the result file, e.g. "machine shared, noisy"), BENCH_JOBS_STEADY_S
// (60), BENCH_JOBS_LISTENERS (24).
// Quick run: BENCH_JOBS_CHARS=20000 BENCH_JOBS_LOAD_CHARS=15000 BENCH_JOBS_LATENCY_N=15 BENCH_JOBS_PAIRS=1 node bench/jobs-book.js
import { execFile, fork } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { TEXT, here, machine, openWsSession, pct, round, serveNodeFlags, streamTts, summary, writeResults } from './harness.js';

const env = (name, dflt) => process.env[name] ?? dflt;
const RUNS = new Set(env('BENCH_JOBS_RUNS', 'book,latency').split(','));
const CHARS = Number(env('BENCH_JOBS_CHARS', 200_000));
const MODEL = env('BENCH_JOBS_MODEL', 'sawt-hts');
const VOICE = env('BENCH_JOBS_VOICE', 'fusha-ziad');
const FORMAT = env('BENCH_JOBS_FORMAT', 'mp3_44100_64');
const LOAD_CHARS = Number(env('BENCH_JOBS_LOAD_CHARS', 40_000));
const N = Number(env('BENCH_JOBS_LATENCY_N', 30));
const PAIRS = Number(env('BENCH_JOBS_PAIRS', 2));
const LIVE_MODEL = env('BENCH_JOBS_LIVE_MODEL', 'sawt-mini');
const STEADY_S = Number(env('BENCH_JOBS_STEADY_S', 60));
const LISTENERS = Number(env('BENCH_JOBS_LISTENERS', 24));
const WS_TEXT = TEXT.slice(0, 175);
const MB = (b) => round(b / 1048576, 1);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A book of about `chars` characters: chapters (Markdown headings) of paragraphs of 4 to 6
 * sentences. The sentences are the CATT test set's 742 news lines where shared/ has them (read,
 * not copied), else the bench's own HTS sentences; they repeat, in a different order each round.
 */
function makeBook(chars) {
  const catt = path.join(here, '../../shared/testdata/diacritization/catt.in');
  const source = existsSync(catt) ? readFileSync(catt, 'utf8') : ['hts-heldout-sentences.txt', 'hts-features-sentences.txt'].map((f) => readFileSync(path.join(here, f), 'utf8')).join('\n');
  const sentences = source.split('\n').map((s) => s.trim()).filter((s) => /\p{L}/u.test(s)).map((s) => (/[.!?؟]$/u.test(s) ? s : `${s}.`));
  const out = [];
  let length = 0;
  let chapter = 0;
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  while (length < chars) {
    const heading = `# الفصل ${++chapter}`;
    out.push(heading, '');
    length += heading.length + 2;
    for (let p = 0; p < 8 && length < chars; p++) {
      const n = 4 + (next() % 3);
      const paragraph = Array.from({ length: n }, () => sentences[next() % sentences.length]).join(' ');
      out.push(paragraph, '');
      length += paragraph.length + 2;
    }
  }
  return out.join('\n').slice(0, chars);
}

async function startServer() {
  const options = env('BENCH_JOBS_OPTIONS', null);
  const child = fork(path.join(here, 'jobs-server.js'), {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: serveNodeFlags(), env: { ...process.env, ...(options && { BENCH_JOBS_OPTIONS: options }) },
  });
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (stopping) return;
    console.error(`bench/jobs-server.js exited (${signal ?? code}) before the bench ended`);
    process.exit(1);
  });
  const [ready] = await once(child, 'message');
  const ask = async (msg) => {
    child.send(msg);
    for (;;) {
      const [m] = await once(child, 'message');
      if (m.type === msg) return m;
    }
  };
  return { ...ready, pid: child.pid, ask, stop: async () => { stopping = true; child.send('stop'); await once(child, 'exit'); } };
}

const server = await startServer();
const api = `http://127.0.0.1:${server.port}/api/v1`;
const headers = { 'x-api-key': server.key };

async function call(method, p, body) {
  const res = await fetch(`${api}${p}`, { method, headers: { ...headers, ...(body && { 'content-type': 'application/json' }) }, ...(body && { body: JSON.stringify(body) }) });
  if (!res.ok) throw new Error(`${method} ${p}: HTTP ${res.status} ${await res.text()}`);
  return res;
}
const submit = async (text, title) => (await (await call('POST', `/text-to-speech/${MODEL}/jobs`, { voice_id: VOICE, text, output_format: FORMAT, title })).json()).job_id;
const getJob = async (id) => (await call('GET', `/jobs/${id}`)).json();
async function until(id, done, intervalMs = 1000) {
  for (;;) {
    const job = await getJob(id);
    if (done(job)) return job;
    if (['failed', 'canceled'].includes(job.status)) throw new Error(`job ${id} ${job.status}: ${JSON.stringify(job.error)}`);
    await sleep(intervalMs);
  }
}

/** Seconds of audio in `bytes` as ffprobe reads them (null without ffprobe). */
async function probeSeconds(bytes) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'sawt-bench-jobs-audio-'));
  try {
    const file = path.join(dir, `audio.${FORMAT.split('_')[0]}`);
    await writeFile(file, bytes);
    const { stdout } = await promisify(execFile)('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]);
    return round(Number(stdout.trim()), 3);
  } catch {
    return null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const results = {
  date: new Date().toISOString(), note: env('BENCH_JOBS_NOTE', null), machine: machine(), loadAverageAtStart: os.loadavg().map((x) => round(x)),
  settings: { model: MODEL, voice: VOICE, format: FORMAT, bookChars: CHARS, loadChars: LOAD_CHARS, latencyN: N, pairs: PAIRS, liveModel: LIVE_MODEL, jobsOptions: JSON.parse(env('BENCH_JOBS_OPTIONS', '{}')) },
  runs: {},
};

// Warm-up: the models load on first use (a short job, and live requests of both kinds).
await until(await submit('كان يا ما كان في قديم الزمان رجل يحب القراءة كثيرا. كان يقرأ كل يوم كتابا جديدا.', 'warm-up'), (j) => j.status === 'succeeded', 200);
for (let i = 0; i < 3; i++) await streamTts({ port: server.port, key: server.key, model: LIVE_MODEL });

if (RUNS.has('book')) {
  const text = makeBook(CHARS);
  await server.ask('reset');
  const before = (await server.ask('figures')).diskNow;
  const t0 = performance.now();
  const id = await submit(text, `bench book of ${text.length} characters`);
  const submitMs = performance.now() - t0;
  let shown = -1;
  const job = await until(id, (j) => {
    const pctDone = Math.floor(j.progress * 100);
    if (pctDone >= shown + 10) process.stderr.write(`book: ${(shown = pctDone)} % (${j.characters_done}/${j.characters} characters, ${Math.round((performance.now() - t0) / 1000)} s)\n`);
    return j.status === 'succeeded';
  });
  const wallSeconds = (performance.now() - t0) / 1000;
  const figures = await server.ask('figures');
  const audio = new Uint8Array(await (await call('GET', `/jobs/${id}/audio`)).arrayBuffer());
  results.runs.book = {
    chars: text.length, billableCharacters: job.characters, submitMs: round(submitMs, 1),
    wallSeconds: round(wallSeconds, 1), audioSeconds: round(job.audio_seconds, 1), realTimeFactor: round(wallSeconds / job.audio_seconds, 4),
    charactersPerSecond: round(job.characters / wallSeconds, 1), cost: job.cost,
    peakRssMB: MB(figures.rssPeak),
    databaseMB: { before: MB(before.database), peak: MB(figures.diskPeak.database), after: MB(figures.diskNow.database) },
    otherFilesMB: { before: MB(before.other), peak: MB(figures.diskPeak.other), after: MB(figures.diskNow.other) },
    audioMB: MB(audio.length), audioSecondsByFfprobe: await probeSeconds(audio),
  };
  await call('DELETE', `/jobs/${id}`);
}

/** The server's event-loop delay (ms: p50, p99, max) since the last call. */
async function loopDelay() {
  const { type, ...delay } = await server.ask('loop');
  return delay;
}

/** One side of a pair: N sequential HTTP first bytes, then N WebSocket flushes on one session (ms). */
async function liveSide(session) {
  const http = [];
  for (let i = 0; i < N; i++) http.push((await streamTts({ port: server.port, key: server.key, model: LIVE_MODEL })).firstByteMs);
  const ws = [];
  for (let i = 0; i < N; i++) {
    const first = session.next((m) => typeof m.audio === 'string');
    const final = session.next((m) => m.isFinal === true);
    const t0 = performance.now();
    session.send({ type: 'text', text: WS_TEXT, flush: true });
    ws.push((await first) - t0);
    await final;
  }
  return { http, ws };
}

if (RUNS.has('latency')) {
  const session = await openWsSession(`ws://127.0.0.1:${server.port}/api/v1/websocket/text-to-speech?x-api-key=${encodeURIComponent(server.key)}`, 'fusha-omar');
  const all = { idle: { http: [], ws: [] }, loaded: { http: [], ws: [] } };
  const loops = { idle: [], loaded: [] }; // the server's event-loop delay over each side
  const jobRates = [];
  let jobsRanThroughout = true;
  for (let pair = 0; pair < PAIRS; pair++) {
    for (const side of pair % 2 ? ['loaded', 'idle'] : ['idle', 'loaded']) {
      if (side === 'idle') {
        await loopDelay();
        const r = await liveSide(session);
        loops.idle.push(await loopDelay());
        all.idle.http.push(...r.http);
        all.idle.ws.push(...r.ws);
        continue;
      }
      // Two jobs, each of several parts: the runners (one per core by default) take their parts, the
      // older job's first (accounts take turns; one account's jobs go in order). The side starts once
      // the first part is done (models loaded, the runners busy), and counts only if neither job had
      // ended by its end (work was there for every runner all along).
      const ids = [await submit(makeBook(LOAD_CHARS), 'load 1'), await submit(makeBook(LOAD_CHARS), 'load 2')];
      await until(ids[0], (j) => j.status === 'running' && j.characters_done > 0, 200);
      const start = await Promise.all(ids.map(getJob));
      await loopDelay();
      const t0 = performance.now();
      const r = await liveSide(session);
      const seconds = (performance.now() - t0) / 1000;
      loops.loaded.push(await loopDelay());
      const end = await Promise.all(ids.map(getJob));
      if (end.some((j) => !['queued', 'running'].includes(j.status))) jobsRanThroughout = false;
      jobRates.push(end.reduce((n, j, i) => n + j.characters_done - start[i].characters_done, 0) / seconds);
      all.loaded.http.push(...r.http);
      all.loaded.ws.push(...r.ws);
      for (const id of ids) await call('DELETE', `/jobs/${id}`);
    }
  }
  session.ws.close();
  const ratio = (kind, p) => round(pct(all.loaded[kind], p) / pct(all.idle[kind], p), 3);
  const ratios = { httpP50: ratio('http', 50), httpP95: ratio('http', 95), wsP50: ratio('ws', 50), wsP95: ratio('ws', 95) };
  results.runs.latency = {
    liveModel: LIVE_MODEL, httpChars: TEXT.length, wsChars: WS_TEXT.length,
    idle: { httpFirstByteMs: summary(all.idle.http), wsFlushToFirstAudioMs: summary(all.idle.ws), eventLoopDelayMs: loops.idle },
    with2Jobs: { httpFirstByteMs: summary(all.loaded.http), wsFlushToFirstAudioMs: summary(all.loaded.ws), jobsCharactersPerSecond: round(jobRates.reduce((a, b) => a + b, 0) / jobRates.length, 1), jobsCharactersPerSecondBySide: jobRates.map((x) => round(x, 1)), jobsRanThroughout, eventLoopDelayMs: loops.loaded },
    loadedOverIdle: ratios,
    within20Percent: Object.values(ratios).every((x) => x <= 1.2),
  };
}

/** CPU seconds so far of the server's threads, all and those named in `names` (/proc/<pid>/task/<tid>/stat: utime + stime). */
function serverCpu(names) {
  const tick = 100; // USER_HZ on Linux
  let all = 0, named = 0;
  for (const tid of readdirSync(`/proc/${server.pid}/task`)) {
    let stat;
    try { stat = readFileSync(`/proc/${server.pid}/task/${tid}/stat`, 'utf8'); } catch { continue; }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const seconds = (Number(fields[11]) + Number(fields[12])) / tick;
    all += seconds;
    if (names.includes(name)) named += seconds;
  }
  return { all, named };
}

/** Listeners, each asking for the next 200 characters once the last answer's audio has played, until `endAt`. */
async function steadyLive(endAt) {
  const firstBytes = [];
  let audioSeconds = 0;
  await Promise.all(Array.from({ length: LISTENERS }, async (_, i) => {
    await sleep((i * 10_000) / LISTENERS); // arrivals spread over the first 10 s, then each at its own pace
    while (performance.now() < endAt) {
      const t0 = performance.now();
      const r = await streamTts({ port: server.port, key: server.key, model: LIVE_MODEL });
      firstBytes.push(r.firstByteMs);
      audioSeconds += r.audioSeconds;
      const rest = t0 + r.firstByteMs + r.audioSeconds * 1000 - performance.now();
      const wait = Math.min(rest, endAt - performance.now());
      if (wait > 0) await sleep(wait);
    }
  }));
  return { firstBytes, audioSeconds };
}

if (RUNS.has('steady')) {
  const JOB_THREADS = ['sawt-hts-bg', 'sawt-onnx-bg'];
  const side = async (jobs, live) => {
    const ids = jobs ? [await submit(makeBook(LOAD_CHARS), 'steady 1'), await submit(makeBook(LOAD_CHARS), 'steady 2')] : [];
    if (jobs) await until(ids[0], (j) => j.status === 'running' && j.characters_done > 0, 200);
    const start = await Promise.all(ids.map(getJob));
    const cpu0 = serverCpu(JOB_THREADS);
    await loopDelay();
    const t0 = performance.now();
    const l = live ? await steadyLive(t0 + STEADY_S * 1000) : (await sleep(STEADY_S * 1000), null);
    const seconds = (performance.now() - t0) / 1000;
    const cpu1 = serverCpu(JOB_THREADS);
    const eventLoopDelayMs = await loopDelay();
    const end = await Promise.all(ids.map(getJob));
    for (const id of ids) await call('DELETE', `/jobs/${id}`);
    const cores = os.availableParallelism();
    return {
      seconds: round(seconds, 1),
      ...(jobs && {
        jobsCharactersPerSecond: round(end.reduce((n, j, i) => n + j.characters_done - start[i].characters_done, 0) / seconds, 1),
        jobsRanThroughout: end.every((j) => ['queued', 'running'].includes(j.status)),
      }),
      jobThreadsCpuShare: round((cpu1.named - cpu0.named) / seconds / cores, 3),
      serverCpuShare: round((cpu1.all - cpu0.all) / seconds / cores, 3),
      eventLoopDelayMs,
      ...(l && { liveRequests: l.firstBytes.length, liveAudioSecondsPerSecond: round(l.audioSeconds / seconds, 2), liveFirstByteMs: summary(l.firstBytes) }),
    };
  };
  const alone = await side(true, false);
  const beside = await side(true, true);
  const liveAlone = await side(false, true);
  const kept = round(beside.jobsCharactersPerSecond / alone.jobsCharactersPerSecond, 3);
  results.runs.steady = {
    listeners: LISTENERS, liveModel: LIVE_MODEL, seconds: STEADY_S, jobsAlone: alone, jobsBesideLive: beside, liveAlone,
    jobsKeptOfTheirThroughput: kept, atLeastAQuarter: kept >= 0.25,
    liveFirstByteWithJobsOverAlone: { p50: round(beside.liveFirstByteMs.p50 / liveAlone.liveFirstByteMs.p50, 3), p95: round(beside.liveFirstByteMs.p95 / liveAlone.liveFirstByteMs.p95, 3) },
  };
}

results.loadAverageAtEnd = os.loadavg().map((x) => round(x));
await server.stop();
writeResults('jobs-book', results);
