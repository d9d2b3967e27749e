// Shared by the benchmarks: the 200-character text, the voices, the server child
// process (bench/server.js over IPC), percentiles and result files.
import { execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

export const here = path.dirname(fileURLToPath(import.meta.url));

// 200 characters of Arabic (a typical assistant reply).
export const TEXT = 'مرحبا بكم في خدمة صوت للنطق العربي. نقدم لكم أصواتا بلهجات متعددة، من الفصحى إلى المصرية والخليجية، مع زمن استجابة منخفض جدا. جربوا الخدمة اليوم، وشاركونا آراءكم لنحسنها أكثر في الأسابيع القادمة، ونعدكم بالمزيد.'.slice(0, 200);
// The voices of concurrent runs, in turn (BENCH_VOICES: a comma-separated list instead, e.g. to hold the dialects apart).
export const VOICES = process.env.BENCH_VOICES ? process.env.BENCH_VOICES.split(',') : ['fusha-omar', 'fusha-layla', 'egyptian-karim', 'egyptian-nour', 'emirati-hamdan', 'najdi-noura', 'hijazi-reem', 'kuwaiti-bader'];

/**
 * The server's event-loop figures from bench/server.js's 'eld' answer: max and p99 delay (ms), and
 * stalls (Linux): the longest gap between two 1 ms ticks of the server's main thread, split into
 * the time it ran (its own work), the time it waited for a core, and the rest, blocked (asleep in
 * a lock, a wait for GC helper threads, a page fault, a synchronous system call); maxOwnWorkMs:
 * the most it ran in any one gap (the longest stretch of the server's own synchronous work). The
 * kernel brings a thread's run time up to date only at scheduler events and ticks, so the split is
 * approximate: on this machine one reading carried 15 ms of run time over 0.3 ms of wall time. gc: the server's longest garbage-collection pause per kind. control:
 * max and p99 of bench/eld-control.js, an idle Node process measured over the same seconds: what
 * the machine itself did to every process's event loop (a bare process here sees 11–44 ms).
 */
export function eventLoopFigures(eld) {
  const stalls = eld.stalls && {
    worstGapMs: round(eld.stalls.gapMs), ranMs: round(eld.stalls.onCpuMs), waitedForCpuMs: round(eld.stalls.waitingMs),
    blockedMs: round(Math.max(0, eld.stalls.gapMs - eld.stalls.onCpuMs - eld.stalls.waitingMs)), maxOwnWorkMs: round(eld.stalls.maxOnCpuMs),
  };
  const gc = eld.gc && Object.fromEntries(Object.entries(eld.gc).map(([kind, g]) => [kind, { count: g.count, maxMs: round(g.maxMs), totalMs: round(g.totalMs), ...(g.maxFlags?.length && { maxFlags: g.maxFlags }) }]));
  const control = eld.control && { max: round(eld.control.maxMs), p99: round(eld.control.p99Ms) };
  return { max: round(eld.maxMs), p99: round(eld.p99Ms), ...(stalls && { stalls }), ...(gc && { gc }), ...(control && { control }) };
}

/** Sends `msg` to a child process and resolves with its first answer of `type`. */
async function askChild(child, msg, type) {
  child.send(msg);
  for (;;) {
    const [m] = await once(child, 'message');
    if (m.type === type) return m;
  }
}

/** The Node options `sawt serve` starts with on this machine (packages/cli/bin/node-flags.sh). */
export function serveNodeFlags() {
  return execFileSync('sh', [path.join(here, '../packages/cli/bin/node-flags.sh')], { encoding: 'utf8' }).split(/\s+/).filter(Boolean);
}

/**
 * Starts bench/server.js (extra environment variables in `env`) and, beside it, the control process
 * bench/eld-control.js; returns the server's port and key, an IPC ask(), and stop(). ask('eld-reset')
 * and ask('eld') reset and read both: the answer to 'eld' carries the control's figures as `control`.
 */
export async function startBenchServer({ env } = {}) {
  // The server runs with the Node options `sawt serve` runs with (packages/cli/bin/node-flags.sh),
  // then BENCH_SERVER_NODE_ARGS: more options of the server process alone (e.g. --cpu-prof --cpu-prof-dir=DIR).
  const execArgv = [...serveNodeFlags(), ...(process.env.BENCH_SERVER_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [])];
  const server = fork(path.join(here, 'server.js'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv, ...(env && { env: { ...process.env, ...env } }) });
  const control = fork(path.join(here, 'eld-control.js'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
  const [[ready]] = await Promise.all([once(server, 'message'), once(control, 'message')]);
  const ask = async (msg, type) => {
    if (msg === 'eld-reset') await askChild(control, msg, type);
    const answer = await askChild(server, msg, type);
    if (msg === 'eld') answer.control = await askChild(control, msg, type);
    return answer;
  };
  const stop = async () => {
    control.send('stop');
    server.send('stop');
    await Promise.all([once(server, 'exit'), once(control, 'exit')]);
  };
  return { port: ready.port, key: ready.key, setup: ready.setup, ask, stop };
}

export const pct = (arr, p) => {
  const s = [...arr].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
export const round = (x, d = 2) => Number(x.toFixed(d));

/**
 * Time the machine's virtual CPUs were not run by the host (steal, from /proc/stat; ms, all CPUs
 * together, 10 ms steps), null where not known. Any of it in a run is a stall no process on the
 * machine could avoid.
 */
export function stealMs() {
  try {
    const cpu = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0].trim().split(/\s+/);
    return Number(cpu[8]) * (1000 / 100);
  } catch {
    return null;
  }
}

export const machine = () => ({ cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version });

/** Writes bench/results/<name>-<date>.json, prints it, and says where it went. */
export function writeResults(name, results) {
  // SAWT_BENCH_RESULTS_DIR: another folder (the report's test writes its runs to a temporary one).
  const dir = process.env.SAWT_BENCH_RESULTS_DIR ?? path.join(here, 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}-${results.date.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify(results, null, 2));
  console.log(JSON.stringify(results, null, 2));
  console.log(`written to ${path.relative(process.cwd(), file)}`);
}

/** p50/p95/max, n and the samples themselves (for the report's distributions) of a list of milliseconds. */
export const summary = (arr, d = 2) => ({ p50: round(pct(arr, 50), d), p95: round(pct(arr, 95), d), max: round(Math.max(...arr), d), n: arr.length, samples: arr.map((x) => round(x, 1)) });

/**
 * One streaming text-to-speech request: time to the first audio byte, total time
 * and seconds of 24 kHz PCM16 received (the PCM itself when `keep`).
 */
export async function streamTts({ port, key, model = 'sawt-mini', voice_id = 'fusha-omar', text = TEXT, keep = false }) {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/text-to-speech/${model}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ voice_id, text, stability: 0.5, streaming: true }),
  });
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  const reader = res.body.getReader();
  let first = -1;
  let bytes = 0;
  const parts = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (first < 0) first = performance.now() - t0;
    bytes += value.length;
    if (keep) parts.push(Buffer.from(value));
  }
  return { firstByteMs: first, totalMs: performance.now() - t0, audioSeconds: bytes / 2 / 24000, pcm: keep ? Buffer.concat(parts) : null };
}

/** `streams` concurrent loops of `perStream` requests each (`request(i)` for loop i): all results and the wall time (s). */
export async function concurrentStreams(streams, perStream, request) {
  const t0 = performance.now();
  const results = (await Promise.all(Array.from({ length: streams }, async (_, i) => {
    const out = [];
    for (let j = 0; j < perStream; j++) out.push(await request(i));
    return out;
  }))).flat();
  return { results, wallSeconds: (performance.now() - t0) / 1000 };
}

const rtfOf = (r) => r.totalMs / 1000 / r.audioSeconds;

/** Figures of sequential streamTts results: first byte, audio length, real-time factor. */
export const sequentialFigures = (seq) => ({
  requests: seq.length,
  firstByteMs: summary(seq.map((r) => r.firstByteMs)),
  audioSeconds: round(seq[0].audioSeconds),
  realTimeFactor: { p50: round(pct(seq.map(rtfOf), 50), 4), p95: round(pct(seq.map(rtfOf), 95), 4) },
});

/** Figures of concurrent streamTts results (see concurrentStreams): throughput, first byte, real-time factor. */
export const concurrentFigures = (streams, { results, wallSeconds }) => ({
  streams,
  requests: results.length,
  wallSeconds: round(wallSeconds),
  requestsPerSecond: round(results.length / wallSeconds),
  audioSecondsPerSecond: round(results.reduce((s, r) => s + r.audioSeconds, 0) / wallSeconds),
  firstByteMs: summary(results.map((r) => r.firstByteMs)),
  realTimeFactor: { p50: round(pct(results.map(rtfOf), 50), 4) },
});

/** An initialized sawt-mini WebSocket session at `url`; next(pred) resolves with the time of the next message matching pred. */
export async function openWsSession(url, voice_id) {
  const ws = new WebSocket(url);
  const waiters = [];
  ws.on('message', (d) => {
    const at = performance.now();
    const m = JSON.parse(d.toString());
    if (m.type === 'error') throw new Error(`server error: ${m.errorMessage}`);
    for (const w of [...waiters]) {
      if (w.pred(m)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(at);
      }
    }
  });
  const next = (pred) => new Promise((resolve) => waiters.push({ pred, resolve }));
  await once(ws, 'open');
  const init = next((m) => m.type === 'connectionInitialized');
  ws.send(JSON.stringify({ type: 'initConnection', voice_id, model_id: 'sawt-mini' }));
  await init;
  return { ws, next, send: (o) => ws.send(JSON.stringify(o)) };
}

/** The whole PCM (16-bit, 24 kHz) of one native HTS synthesis with `options` (synthesizeHtsStream's). */
export function htsPcm(synthesizeHtsStream, options) {
  return new Promise((resolve, reject) => {
    const parts = [];
    const s = synthesizeHtsStream({ sampleRate: 24000, chunkMs: 0, threads: 1, ...options });
    s.on('data', (c) => parts.push(c.pcm));
    s.on('error', reject);
    s.on('end', () => resolve(Buffer.concat(parts)));
  });
}
