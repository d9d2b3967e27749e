import { type FromSchema, currentProcess, definePlugin, tokens, type ConcurrencyLimiter, type RateLimiter, type SharedLimits } from '@sawt/core';
import { billingMigrations } from './migrations.js';
import { SqlWallet } from './wallet.js';
import { FixedWindowRateLimiter, InMemoryConcurrencyLimiter, type RateLimitSettings } from './limits.js';
import { SawtAdmissionControl } from './admission.js';
import { ReservationLeases } from './leases.js';
import { PrimaryConcurrencyLimiter, PrimaryRateLimiter, usesPrimaryLimits } from './worker-limits.js';

export { SqlWallet, SqlReservation } from './wallet.js';
export { FixedWindowRateLimiter, InMemoryConcurrencyLimiter, type RateLimitSettings } from './limits.js';
export { SawtAdmissionControl, PLAN_CONCURRENCY } from './admission.js';
export { ReservationLeases, type LeaseSettings } from './leases.js';
export { serveWorkerLimits, WORKER_LIMITS_ENV } from './worker-limits.js';

const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    rateLimit: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        windowMs: { type: 'integer', minimum: 1, default: 60_000 },
        max: { type: 'integer', minimum: 0, default: 600 },
      },
    },
    // Reservation leases: how a dead process's reservations come back (leases.ts).
    leases: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        ttlMs: { type: 'integer', minimum: 500, default: 60_000 },
        heartbeatMs: { type: 'integer', minimum: 100, default: 10_000 },
        sweepMs: { type: 'integer', minimum: 100, default: 30_000 },
      },
    },
  },
} as const;

export type BillingOptions = FromSchema<typeof configSchema>;

/** Wallet with leased reservations and ledger, concurrency and rate limits, and admission control. */
export default definePlugin<BillingOptions>({
  id: 'billing',
  provides: [tokens.wallet, tokens.concurrency, tokens.rateLimiter, tokens.admission],
  // accounts: wallets belong to accounts; quota: the per-key character quota lives in auth (it owns api_keys).
  consumes: [tokens.database, tokens.logger, tokens.accounts, tokens.quota, tokens.metrics],
  // Present in a cluster (Redis plugin): limits every node shares, used instead of this process's own.
  optionalConsumes: [tokens.sharedLimits],
  configSchema,

  register(ctx) {
    const { leases: lease } = ctx.options;
    if (lease.heartbeatMs >= lease.ttlMs) {
      throw new Error(`leases.heartbeatMs (${lease.heartbeatMs}) must be shorter than leases.ttlMs (${lease.ttlMs}), or live reservations would expire between heartbeats`);
    }
    const db = ctx.get(tokens.database);
    db.addMigrations(ctx.pluginId, billingMigrations);
    const leases = new ReservationLeases(db, currentProcess(ctx.runtime.nodeId), lease, ctx.logger);
    const wallet = new SqlWallet(db, ctx.get(tokens.accounts), ctx.get(tokens.quota), leases, ctx.logger);
    const { concurrency, rateLimiter, localRate } = chooseLimits(ctx.has(tokens.sharedLimits) ? ctx.get(tokens.sharedLimits) : null, ctx.options.rateLimit);
    const admission = new SawtAdmissionControl(concurrency, wallet, ctx.logger);
    ctx.provide(tokens.wallet, wallet);
    ctx.provide(tokens.concurrency, concurrency);
    ctx.provide(tokens.rateLimiter, rateLimiter);
    ctx.provide(tokens.admission, admission);
    ctx.get(tokens.metrics).addGauge({ name: 'sawt_wallet_reservations_open', help: 'Wallet reservations this process holds open (synthesis or denoise paid for but not yet settled or released).', read: () => wallet.openReservations });
    let sweeper: NodeJS.Timeout | undefined;
    return {
      async start() {
        await leases.start((row, reason) => wallet.releaseOrphan(row, reason));
        if (localRate) {
          sweeper = setInterval(() => localRate.sweep(), Math.max(ctx.options.rateLimit.windowMs, 1000));
          sweeper.unref();
        }
      },
      async stop() {
        clearInterval(sweeper);
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
function chooseLimits(shared: SharedLimits | null, rate: RateLimitSettings): { concurrency: ConcurrencyLimiter; rateLimiter: RateLimiter; localRate: FixedWindowRateLimiter | null } {
  if (shared) return { concurrency: shared.concurrency, rateLimiter: shared.rateLimiter(rate), localRate: null };
  if (usesPrimaryLimits()) return { concurrency: new PrimaryConcurrencyLimiter(), rateLimiter: new PrimaryRateLimiter(rate), localRate: null };
  const localRate = new FixedWindowRateLimiter(rate);
  return { concurrency: new InMemoryConcurrencyLimiter(), rateLimiter: localRate, localRate };
}
