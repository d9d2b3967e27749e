// Bench server: boots Sawt in its own process with a fresh data dir, creates an
// enterprise account and key, and reports its event-loop delay and peak RSS on request (IPC).
// SAWT_BENCH_PLUGIN_OPTIONS='{"@sawt/plugin-denoise":{...}}' overrides plugin options of the default config.
import { closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createSawt, tokens, toMicro } from '@sawt/core';

const dataDir = mkdtempSync(path.join(tmpdir(), 'sawt-bench-'));
const quiet = { info() {}, debug() {}, warn() {}, error: console.error, child() { return quiet; } };
let config;
if (process.env.SAWT_BENCH_PLUGIN_OPTIONS) {
  const overrides = JSON.parse(process.env.SAWT_BENCH_PLUGIN_OPTIONS);
  config = JSON.parse(readFileSync(fileURLToPath(new URL('../config/default.json', import.meta.url)), 'utf8'));
  for (const p of config.plugins) if (overrides[p.resolve]) p.options = { ...p.options, ...overrides[p.resolve] };
}
const app = await createSawt({ runtime: { port: 0, host: '127.0.0.1', dataDir, modelsDir: process.env.SAWT_MODELS_DIR ?? path.join(dataDir, 'models') }, logger: quiet, ...(config && { config }) });
await app.start();
// BENCH_STALL_MS: the JavaScript thread is held this long every 500 ms (as a long garbage
// collection would hold it), to measure how quickly the event loop recovers after a pause.
const stallMs = Number(process.env.BENCH_STALL_MS ?? 0);
if (stallMs > 0) {
  setInterval(() => {
    const until = performance.now() + stallMs;
    while (performance.now() < until);
  }, 500).unref();
}
const account = await app.get(tokens.accounts).create({ name: 'bench', plan: 'enterprise' });
await app.get(tokens.wallet).topUp(account.id, toMicro('1000000'));
const key = await app.get(tokens.apiKeys).create({ accountId: account.id });
let eld = monitorEventLoopDelay({ resolution: 1 });
eld.enable();

// Where the worst delays come from (Linux): every millisecond the main thread reads its own
// /proc/thread-self/schedstat (ns on a CPU, ns runnable but waiting for one). For each gap between
// two ticks: how much of it the thread ran (its own synchronous work: JS, GC, native calls) and how
// much it waited for a core (other threads and processes on the machine). On a loaded machine the
// second part is not the server's doing.
const stalls = (() => {
  let fd;
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return null;
  }
  const buf = Buffer.alloc(96);
  const read = () => {
    const text = buf.toString('latin1', 0, readSync(fd, buf, 0, buf.length, 0));
    const [run, wait] = text.split(' ').map(Number);
    return { run, wait };
  };
  let worst;
  const reset = () => (worst = { gapMs: 0, onCpuMs: 0, waitingMs: 0, maxOnCpuMs: 0 });
  reset();
  let last = { at: performance.now(), ...read() };
  const timer = setInterval(() => {
    const now = { at: performance.now(), ...read() };
    const gapMs = now.at - last.at;
    const onCpuMs = (now.run - last.run) / 1e6;
    if (gapMs > worst.gapMs) Object.assign(worst, { gapMs, onCpuMs, waitingMs: (now.wait - last.wait) / 1e6 });
    worst.maxOnCpuMs = Math.max(worst.maxOnCpuMs, onCpuMs);
    last = now;
  }, 1);
  timer.unref();
  return { reset, read: () => ({ ...worst }), close: () => (clearInterval(timer), closeSync(fd)) };
})();
// Garbage collection pauses of the main thread since the last 'eld-reset': the longest per kind
// (scavenge = young generation, markCompact = full) and their count; a stall of the event loop
// that matches one of these is V8's, not Sawt's code.
const gcKinds = { [perfConstants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge', [perfConstants.NODE_PERFORMANCE_GC_MAJOR]: 'markCompact', [perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [perfConstants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakCallbacks' };
const gcFlagNames = (flags) => Object.entries(perfConstants)
  .filter(([name, bit]) => name.startsWith('NODE_PERFORMANCE_GC_FLAGS_') && bit !== 0 && (flags & bit) === bit)
  .map(([name]) => name.slice('NODE_PERFORMANCE_GC_FLAGS_'.length).toLowerCase());
let gc = {};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = gcKinds[e.detail?.kind] ?? 'other';
    const k = (gc[kind] ??= { count: 0, maxMs: 0, totalMs: 0 });
    k.count++;
    k.totalMs += e.duration;
    if (e.duration > k.maxMs) {
      k.maxMs = e.duration;
      // Why the longest one ran, as Node reports it: e.g. forced, or for all external memory
      // (V8 collects the whole heap at once when memory outside it, such as audio buffers, grew).
      k.maxFlags = gcFlagNames(e.detail?.flags ?? 0);
    }
  }
}).observe({ entryTypes: ['gc'] });
// Peak RSS since the last 'rss-reset', sampled every 50 ms.
let rssPeak = process.memoryUsage.rss();
setInterval(() => { rssPeak = Math.max(rssPeak, process.memoryUsage.rss()); }, 50).unref();

// The bench process went away (crashed or killed): do not linger.
process.on('disconnect', () => process.exit(0));
process.on('message', async (msg) => {
  if (msg === 'eld-reset') {
    eld.disable();
    eld = monitorEventLoopDelay({ resolution: 1 });
    eld.enable();
    stalls?.reset();
    gc = {};
    process.send({ type: 'eld-reset' });
  } else if (msg === 'eld') {
    process.send({ type: 'eld', maxMs: eld.max / 1e6, p99Ms: eld.percentile(99) / 1e6, meanMs: eld.mean / 1e6, stalls: stalls?.read() ?? null, gc });
  } else if (msg === 'rss-reset') {
    rssPeak = process.memoryUsage.rss();
    process.send({ type: 'rss-reset', rss: rssPeak });
  } else if (msg === 'rss') {
    const rss = process.memoryUsage.rss();
    rssPeak = Math.max(rssPeak, rss);
    process.send({ type: 'rss', rss, peak: rssPeak });
  } else if (msg === 'stop') {
    stalls?.close();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
});
// What the run measured: the diacritizer (on by default when its bundled model loads) and the models offered.
const setup = { diacritizer: app.get(tokens.textPipeline).diacritizerLoaded === true, models: app.get(tokens.models).list().filter((m) => m.available).map((m) => m.model_id) };
process.send({ type: 'ready', port: app.get(tokens.httpServer).server.address().port, key: key.key, rss: process.memoryUsage.rss(), setup });
