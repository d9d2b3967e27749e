// The server of bench/jobs-book.js, in its own process: Sawt with a fresh data directory, an
// enterprise account and key, and over IPC its peak RSS and what its data directory holds on disk
// (the database files apart), sampled while jobs run. BENCH_JOBS_OPTIONS: JSON options of
// @sawt/plugin-jobs (e.g. {"runners":2}).
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSawt, tokens, toMicro } from '@sawt/core';

const dataDir = mkdtempSync(path.join(tmpdir(), 'sawt-bench-jobs-'));
const quiet = { info() {}, debug() {}, warn() {}, error: console.error, child() { return quiet; } };
const config = JSON.parse(readFileSync(fileURLToPath(new URL('../config/default.json', import.meta.url)), 'utf8'));
if (!config.plugins.some((p) => p.resolve === '@sawt/plugin-transport-ws')) config.plugins.push({ resolve: '@sawt/plugin-transport-ws' });
const jobs = config.plugins.find((p) => p.resolve === '@sawt/plugin-jobs');
jobs.options = { ...jobs.options, ...JSON.parse(process.env.BENCH_JOBS_OPTIONS ?? '{}') };
const app = await createSawt({ runtime: { port: 0, host: '127.0.0.1', dataDir, modelsDir: process.env.SAWT_MODELS_DIR ?? path.join(dataDir, 'models') }, logger: quiet, config });
await app.start();
const account = await app.get(tokens.accounts).create({ name: 'bench', plan: 'enterprise' });
await app.get(tokens.wallet).topUp(account.id, toMicro('1000000'));
const key = await app.get(tokens.apiKeys).create({ accountId: account.id });

/** Bytes under `dir` (the models folder left out): { database: SQLite files, other: the rest }. */
function diskUse(dir) {
  const use = { database: 0, other: 0 };
  const walk = (d) => {
    let names;
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const p = path.join(d, name);
      let s;
      try {
        s = statSync(p);
      } catch {
        continue; // removed meanwhile (a part's file)
      }
      if (s.isDirectory()) {
        if (p !== path.join(dataDir, 'models')) walk(p);
      } else if (/\.(db|sqlite3?)(-wal|-shm|-journal)?$/.test(name)) use.database += s.size;
      else use.other += s.size;
    }
  };
  walk(dir);
  return use;
}

// Peaks since the last 'reset': RSS every 50 ms, the data directory every 500 ms.
let rssPeak = 0;
let disk = { database: 0, other: 0 };
const sampleRss = () => { rssPeak = Math.max(rssPeak, process.memoryUsage.rss()); };
const sampleDisk = () => {
  const now = diskUse(dataDir);
  disk = { database: Math.max(disk.database, now.database), other: Math.max(disk.other, now.other) };
};
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();
setInterval(sampleRss, 50).unref();
setInterval(sampleDisk, 500).unref();

process.on('disconnect', () => process.exit(0));
process.on('message', async (msg) => {
  if (msg === 'reset') {
    rssPeak = process.memoryUsage.rss();
    disk = diskUse(dataDir);
    process.send({ type: 'reset' });
  } else if (msg === 'figures') {
    sampleRss();
    sampleDisk();
    process.send({ type: 'figures', rss: process.memoryUsage.rss(), rssPeak, diskPeak: disk, diskNow: diskUse(dataDir) });
  } else if (msg === 'loop') {
    // the event loop's delay since the last 'loop' (ms): how long a ready callback waited for the thread
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    process.send({ type: 'loop', p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) });
    loopDelay.reset();
  } else if (msg === 'stop') {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
});
process.send({ type: 'ready', port: app.get(tokens.httpServer).server.address().port, key: key.key, models: app.get(tokens.models).list().filter((m) => m.available).map((m) => m.model_id) });
