import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { SawtError, systemClock, within, type Clock, type ErrorKindName, type ConcurrencyLimiter, type ConcurrencySlot, type RateLimiter } from '@sawt/core';
import { FixedWindowRateLimiter, InMemoryConcurrencyLimiter, type RateLimitSettings } from './limits.js';

/**
 * `sawt serve --workers N` without Redis: the primary holds the machine's one concurrency limiter and
 * rate counter, and the workers ask it over the cluster IPC channel; a worker that dies gives its
 * slots back at once (the primary sees it exit). Set in the workers' environment by serve.
 */
export const WORKER_LIMITS_ENV = 'SAWT_WORKER_LIMITS';

type Request =
  | { op: 'acquire'; accountId: string; limit: number | null }
  | { op: 'release'; slotId: string }
  | { op: 'inFlight'; accountId: string }
  | { op: 'hit'; keyId: string; windowMs: number; max: number };

interface Envelope { sawtLimits: true; id: string; req: Request }
/** error.kind: a refusal (42901, 42902) the worker throws as the same SawtError; absent: the primary failed. */
interface Reply { sawtLimits: true; id: string; value?: unknown; error?: { kind?: ErrorKindName; message: string; headers?: Record<string, string> } }

/** True in a worker started by `sawt serve --workers` without shared (Redis) limits. */
export function usesPrimaryLimits(): boolean {
  return cluster.isWorker && process.env[WORKER_LIMITS_ENV] === 'ipc';
}

/** Primary side: answers the workers' limit requests; returns a function that stops serving. */
export function serveWorkerLimits(clock: Clock = systemClock): () => void {
  const concurrency = new InMemoryConcurrencyLimiter();
  const counters = new Map<string, FixedWindowRateLimiter>();
  const slotsOf = new Map<number, Map<string, ConcurrencySlot>>();
  const stopSweeping = clock.after(10_000, () => counters.forEach((c) => c.sweep()), { every: true, unref: true });

  const answer = async (worker: Worker, req: Request): Promise<unknown> => {
    switch (req.op) {
      case 'acquire': {
        const slot = await concurrency.acquire(req.accountId, req.limit);
        const slotId = randomUUID();
        let mine = slotsOf.get(worker.id);
        if (!mine) slotsOf.set(worker.id, (mine = new Map()));
        mine.set(slotId, slot);
        return slotId;
      }
      case 'release': {
        // Answered once the slot is off the count: the worker waits for this before the last bytes of its response.
        const mine = slotsOf.get(worker.id);
        const slot = mine?.get(req.slotId);
        mine?.delete(req.slotId);
        await slot?.release();
        return null;
      }
      case 'inFlight':
        return concurrency.inFlight(req.accountId);
      case 'hit': {
        const name = `${req.windowMs}/${req.max}`;
        let c = counters.get(name);
        if (!c) counters.set(name, (c = new FixedWindowRateLimiter({ windowMs: req.windowMs, max: req.max }, clock)));
        await c.hit(req.keyId);
        return null;
      }
    }
  };

  const onMessage = (worker: Worker, msg: Envelope) => {
    if (!msg || msg.sawtLimits !== true || !msg.req) return;
    answer(worker, msg.req).then(
      (value) => reply(worker, { sawtLimits: true, id: msg.id, value }),
      (e: unknown) => reply(worker, { sawtLimits: true, id: msg.id, error: describe(e) }),
    );
  };
  const onExit = (worker: Worker) => {
    for (const slot of slotsOf.get(worker.id)?.values() ?? []) void slot.release();
    slotsOf.delete(worker.id);
  };
  cluster.on('message', onMessage);
  cluster.on('exit', onExit);
  return () => {
    stopSweeping();
    cluster.off('message', onMessage);
    cluster.off('exit', onExit);
  };
}

/**
 * Answers a worker unless it is gone. A worker can exit between isConnected() and the write (seen at
 * shutdown: EPIPE); with a callback the failed write is that callback's, not an 'error' event that
 * would end the primary.
 */
function reply(worker: Worker, msg: Reply): void {
  if (worker.isConnected()) worker.send(msg, undefined, undefined, () => {});
}

function describe(e: unknown): Reply['error'] {
  if (e instanceof SawtError && (e.code === 42901 || e.code === 42902)) return { kind: e.code === 42901 ? 'concurrency' : 'rateLimit', message: e.message, headers: e.headers };
  return { message: (e as Error)?.message ?? String(e) };
}

/** Worker side: one request to the primary, answered in order of replies. */
class PrimaryChannel {
  private readonly pending = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor() {
    process.on('message', (msg: Reply) => {
      if (!msg || msg.sawtLimits !== true) return;
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (!msg.error) p.resolve(msg.value);
      else if (msg.error.kind) p.reject(new SawtError(msg.error.kind, msg.error.message, { headers: msg.error.headers }));
      else p.reject(new Error(`the primary process could not answer a limit request: ${msg.error.message}`));
    });
  }

  ask(req: Request): Promise<unknown> {
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      process.send!({ sawtLimits: true, id, req } satisfies Envelope, (err: Error | null) => {
        if (!err) return;
        this.pending.delete(id);
        reject(err);
      });
    });
  }
}

/** How long a worker waits for the primary to acknowledge a freed slot. */
const RELEASE_WAIT_MS = 2000;

let channel: PrimaryChannel | null = null;
const primary = () => (channel ??= new PrimaryChannel());

export class PrimaryConcurrencyLimiter implements ConcurrencyLimiter {
  async acquire(accountId: string, limit: number | null): Promise<ConcurrencySlot> {
    const slotId = (await primary().ask({ op: 'acquire', accountId, limit })) as string;
    let released: Promise<void> | null = null;
    return {
      // Waits for the primary's answer (at most RELEASE_WAIT_MS: a primary that does not answer frees a dead worker's slots anyway).
      release: () => (released ??= within(primary().ask({ op: 'release', slotId }), RELEASE_WAIT_MS).then(() => undefined, () => undefined)),
    };
  }

  async inFlight(accountId: string): Promise<number> {
    return (await primary().ask({ op: 'inFlight', accountId })) as number;
  }
}

export class PrimaryRateLimiter implements RateLimiter {
  constructor(private readonly settings: RateLimitSettings) {}

  async hit(keyId: string): Promise<void> {
    if (this.settings.max === 0) return;
    await primary().ask({ op: 'hit', keyId, ...this.settings });
  }
}
