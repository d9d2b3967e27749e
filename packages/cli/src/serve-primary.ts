import cluster, { type Worker } from 'node:cluster';

/** A worker that dies within this long of starting counts as failing to start. */
const START_GRACE_MS = 120_000;
/** Restarts of crashed workers allowed per minute before the primary gives up. */
const MAX_RESTARTS_PER_MINUTE = 10;

const say = (msg: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, role: 'primary', ...extra, msg })}\n`);

/** The primary of `sawt serve --workers N`: forks, replaces crashed workers, stops all on a failed start or a signal. */
export function runPrimary(count: number, env: Record<string, string>): Promise<number> {
  // Workers accept connections themselves: with round-robin the primary hands each to a worker, and one handed to a
  // worker that dies before taking it stays open in the primary (a leaked descriptor); now it closes with the worker.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  return new Promise((resolve) => {
    const listening = new Set<number>();
    const restarts: number[] = [];
    let stopping = false;
    let exitCode = 0;

    const fork = () => {
      const w = cluster.fork(env);
      const started = Date.now();
      // A message to a worker that has just gone (EPIPE) is the worker's exit, handled below; as an
      // unhandled 'error' event it would end the primary and every other worker with it.
      w.on('error', (err) => say(`worker ${w.process.pid}: ${err.message}`, { level: 40 }));
      w.once('listening', () => listening.add(w.id));
      w.once('exit', (code, signal) => {
        const served = listening.delete(w.id);
        if (stopping) return finishWhenAllGone();
        if (!served && Date.now() - started < START_GRACE_MS) {
          say(`worker ${w.process.pid} failed to start (exit ${code ?? signal}); stopping`, { level: 50 });
          exitCode = 1;
          return stopAll();
        }
        const now = Date.now();
        restarts.push(now);
        while (restarts.length && restarts[0] < now - 60_000) restarts.shift();
        if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
          say(`workers keep crashing (${restarts.length} in a minute); stopping`, { level: 50 });
          exitCode = 1;
          return stopAll();
        }
        say(`worker ${w.process.pid} exited (${code ?? signal}); starting a replacement`, { level: 40 });
        fork();
      });
    };

    const workers = (): Worker[] => Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    const finishWhenAllGone = () => {
      if (workers().every((w) => w.isDead())) {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        resolve(exitCode);
      }
    };
    const stopAll = () => {
      stopping = true;
      for (const w of workers()) if (!w.isDead()) w.process.kill('SIGTERM');
      finishWhenAllGone();
    };
    const onSignal = (signal: NodeJS.Signals) => {
      say('shutting down', { signal });
      stopAll();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    say(`starting ${count} workers`, { workers: count });
    for (let i = 0; i < count; i++) fork();
  });
}
