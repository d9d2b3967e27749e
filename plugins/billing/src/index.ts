import { type Clock, currentProcess, definePlugin, tokens, type ConcurrencyLimiter, type RateLimiter, type SharedLimits } from '@sawt/core';
import { billingMigrations } from './migrations.js';
import { SqlWallet } from './wallet.js';
import { FixedWindowRateLimiter, InMemoryConcurrencyLimiter, type RateLimitSettings } from './limits.js';
import { SawtAdmissionControl } from './admission.js';
import { ReservationLeases } from './leases.js';
import { PrimaryConcurrencyLimiter, PrimaryRateLimiter, serveWorkerLimits, usesPrimaryLimits, WORKER_LIMITS_ENV } from './worker-limits.js';

export { FixedWindowRateLimiter } from './limits.js';

const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    rateLimit: {
      type: 'object', additionalProperties: false, default: {},
      properties: { windowMs: { type: 'integer', minimum: 1, default: 60_000 }, max: { type: 'integer', minimum: 0, default: 600 } },
    },
    // Reservation leases: how a dead process's reservations come back (leases.ts).
    leases: {
      type: 'object', additionalProperties: false, default: {},
      properties: {
        ttlMs: { type: 'integer', minimum: 500, default: 60_000 },
        heartbeatMs: { type: 'integer', minimum: 100, default: 10_000 },
        sweepMs: { type: 'integer', minimum: 100, default: 30_000 },
      },
    },
  },
} as const;

/** Wallet with leased reservations and ledger, concurrency and rate limits, and admission control. */
export default definePlugin({
  id: 'billing',
  provides: [tokens.wallet, tokens.concurrency, tokens.rateLimiter, tokens.admission, tokens.workerLimits],
  // accounts: wallets belong to accounts; quota: the per-key character quota lives in auth (it owns api_keys).
  deps: { db: tokens.database, accounts: tokens.accounts, quota: tokens.quota, metrics: tokens.metrics, clock: tokens.clock },
  // Present in a cluster (Redis plugin): limits every node shares, used instead of this process's own.
  optionalDeps: { shared: tokens.sharedLimits },
  configSchema,

  register(ctx, { db, accounts, quota, metrics, clock, shared }) {
    const { leases: lease } = ctx.options;
    if (lease.heartbeatMs >= lease.ttlMs) {
      throw new Error(`leases.heartbeatMs (${lease.heartbeatMs}) must be shorter than leases.ttlMs (${lease.ttlMs}), or live reservations would expire between heartbeats`);
    }
    db.addMigrations(ctx.pluginId, billingMigrations);
    const leases = new ReservationLeases(db, currentProcess(ctx.runtime.nodeId), lease, ctx.logger, clock);
    const wallet = new SqlWallet(db, accounts, quota, leases, ctx.logger);
    const { concurrency, rateLimiter, localRate } = chooseLimits(shared ?? null, ctx.options.rateLimit, clock);
    const admission = new SawtAdmissionControl(concurrency, wallet, ctx.logger);
    ctx.provide(tokens.wallet, wallet);
    ctx.provide(tokens.concurrency, concurrency);
    ctx.provide(tokens.rateLimiter, rateLimiter);
    ctx.provide(tokens.admission, admission);
    // Workers share the primary's limiter and rate counter (unless a Redis plugin is configured).
    ctx.provide(tokens.workerLimits, { workerEnv: { [WORKER_LIMITS_ENV]: 'ipc' }, serve: () => serveWorkerLimits(clock) });
    metrics.addGauge({ name: 'sawt_wallet_reservations_open', help: 'Wallet reservations this process holds open (synthesis or denoise paid for but not yet settled or released).', read: () => wallet.openReservations });
    let stopSweeping = () => {};
    return {
      async start() {
        await leases.start((row, reason) => wallet.releaseOrphan(row, reason));
        if (localRate) stopSweeping = clock.after(Math.max(ctx.options.rateLimit.windowMs, 1000), () => localRate.sweep(), { every: true, unref: true });
      },
      async stop() {
        stopSweeping();
        await admission.releaseAll('shutdown');
        await wallet.releaseOpen('shutdown');
        await leases.stop();
      },
    };
  },
});

/**
 * Shared limits (Redis) when a plugin provides them; else, in a worker of
 * `sawt serve --workers`, the primary's; else this process's own.
 */
function chooseLimits(shared: SharedLimits | null, rate: RateLimitSettings, clock: Clock): { concurrency: ConcurrencyLimiter; rateLimiter: RateLimiter; localRate: FixedWindowRateLimiter | null } {
  if (shared) return { concurrency: shared.concurrency, rateLimiter: shared.rateLimiter(rate), localRate: null };
  if (usesPrimaryLimits()) return { concurrency: new PrimaryConcurrencyLimiter(), rateLimiter: new PrimaryRateLimiter(rate), localRate: null };
  const localRate = new FixedWindowRateLimiter(rate, clock);
  return { concurrency: new InMemoryConcurrencyLimiter(), rateLimiter: localRate, localRate };
}
