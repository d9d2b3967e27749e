import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { CLUSTER_METRICS_ENV, createSawt, serveClusterMetrics, tokens, type ClusterPrimaryDuty } from '@sawt/core';
import { UsageError, type Flags } from './args.js';
import { announceWhenListening, nextSteps } from './next-steps.js';
import { runPrimary } from './serve-primary.js';

/** `sawt serve [--workers N]`: N processes behind one port (default SAWT_WORKERS, else one per core), 1 in this one. */
export async function serve(values: Flags = {}): Promise<number> {
  if (cluster.isWorker) {
    const code = await serveOne();
    // The IPC channel to the primary would keep this process alive.
    cluster.worker?.disconnect();
    return code;
  }
  // --port and --host win over SAWT_PORT and SAWT_HOST (the workers inherit them).
  if (typeof values.port === 'string') process.env.SAWT_PORT = String(integer(values.port, '--port', 0, 65535));
  if (typeof values.host === 'string') process.env.SAWT_HOST = values.host;
  const workers = workerCount(typeof values.workers === 'string' ? values.workers : process.env.SAWT_WORKERS, typeof values.workers === 'string' ? '--workers' : 'SAWT_WORKERS');
  if (workers === 1) return serveOne();
  // Migrations run once, here, before any worker boots (the workers then find nothing pending).
  const prepared = await migrateBeforeForking();
  if (!prepared) return 1;
  // What a plugin serves the workers from here (billing: the machine's limits, unless Redis shares them).
  const stopDuties = prepared.duties.map((d) => d.serve());
  // GET /metrics, whichever worker answers it, counts what every worker did.
  const stopMetrics = serveClusterMetrics();
  const stopAnnouncing = announceWhenListening(workers);
  try {
    return await runPrimary(workers, Object.assign({ [CLUSTER_METRICS_ENV]: '1' }, ...prepared.duties.map((d) => d.workerEnv)));
  } finally {
    stopAnnouncing();
    stopMetrics();
    for (const stop of stopDuties) stop();
  }
}

function integer(raw: string, name: string, min: number, max: number): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw new UsageError(`${name} must be an integer from ${min} to ${max} but received ${JSON.stringify(raw)}`);
  return n;
}

function workerCount(raw: string | undefined, name: string): number {
  return raw === undefined || raw.trim() === '' ? availableParallelism() : integer(raw, name, 1, 256);
}

/** The primary migrates (data layer only) and finds what plugins serve their workers from it; null: migration failed. */
async function migrateBeforeForking(): Promise<{ duties: ClusterPrimaryDuty[] } | null> {
  const app = await createSawt({ skipTags: ['transport'] });
  try {
    await app.migrate();
    return { duties: app.has(tokens.workerLimits) ? [app.get(tokens.workerLimits)] : [] };
  } catch (e) {
    app.logger.error({ err: e }, 'database migration failed; not starting the workers');
    return null;
  }
}

/** One server process: boots every configured plugin and stops on SIGTERM/SIGINT. */
async function serveOne(): Promise<number> {
  const app = await createSawt();
  // Every promise is handled where it arises; should one slip through, it is logged as the bug it is and the
  // requests of everyone else go on (Node would otherwise end the process).
  const onUnhandled = (reason: unknown) => app.logger.error({ err: reason }, 'unhandled promise rejection (a bug); the server keeps running');
  process.on('unhandledRejection', onUnhandled);
  await app.start();
  if (!cluster.isWorker) {
    const address = app.get(tokens.httpServer).server.address();
    if (address && typeof address === 'object') process.stderr.write(nextSteps({ host: address.address, port: address.port }));
  }
  let stopping = false;
  const exitCode = await new Promise<number>((resolve) => {
    const shutdown = (signal: NodeJS.Signals) => {
      app.logger.info({ signal }, 'shutting down');
      if (stopping) return;
      stopping = true;
      // A second signal force-quits a process run by hand; a worker ignores it (Ctrl-C reaches it and the primary's SIGTERM follows).
      if (!cluster.isWorker) {
        process.off('SIGTERM', shutdown);
        process.off('SIGINT', shutdown);
      }
      app.stop().then(() => resolve(0), (e) => {
        app.logger.error({ err: e }, 'shutdown failed');
        resolve(1);
      });
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
  });
  process.off('unhandledRejection', onUnhandled);
  app.logger.info('stopped');
  return exitCode;
}
