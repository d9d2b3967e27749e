import { definePlugin, tokens } from '@sawt/core';
import { billingMigrations } from './migrations.js';
import { SqlWallet } from './wallet.js';
import { FixedWindowRateLimiter, InMemoryConcurrencyLimiter, type RateLimitSettings } from './limits.js';
import { SawtAdmissionControl } from './admission.js';

export { SqlWallet, SqlReservation } from './wallet.js';
export { FixedWindowRateLimiter, InMemoryConcurrencyLimiter, type RateLimitSettings } from './limits.js';
export { SawtAdmissionControl } from './admission.js';

export interface BillingOptions {
  rateLimit: RateLimitSettings;
  /** At start, release reservations open longer than this (left by a crashed process); 0 = never. */
  staleReservationMs: number;
}

interface BillingState {
  wallet: SqlWallet;
  rateLimiter: FixedWindowRateLimiter;
  admission: SawtAdmissionControl;
  sweeper?: NodeJS.Timeout;
}

const state = new WeakMap<object, BillingState>();

/** Wallet with reservations and ledger, concurrency and rate limits, and admission control. */
export default definePlugin<BillingOptions>({
  id: 'billing',
  provides: [tokens.wallet, tokens.concurrency, tokens.rateLimiter, tokens.admission],
  // accounts: wallets belong to accounts; quota: the per-key character quota lives in auth (it owns api_keys).
  consumes: [tokens.database, tokens.logger, tokens.accounts, tokens.quota],
  configSchema: {
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
      staleReservationMs: { type: 'integer', minimum: 0, default: 3_600_000 },
    },
  },

  register(ctx) {
    const db = ctx.get(tokens.database);
    db.addMigrations(ctx.pluginId, billingMigrations);
    const wallet = new SqlWallet(db, ctx.get(tokens.accounts), ctx.logger);
    const concurrency = new InMemoryConcurrencyLimiter();
    const rateLimiter = new FixedWindowRateLimiter(ctx.options.rateLimit);
    const admission = new SawtAdmissionControl(ctx.get(tokens.quota), concurrency, wallet, ctx.logger);
    state.set(ctx.container, { wallet, rateLimiter, admission });
    ctx.provide(tokens.wallet, wallet);
    ctx.provide(tokens.concurrency, concurrency);
    ctx.provide(tokens.rateLimiter, rateLimiter);
    ctx.provide(tokens.admission, admission);
  },

  async start(ctx) {
    const s = state.get(ctx.container)!;
    if (ctx.options.staleReservationMs > 0) await s.wallet.releaseStale(ctx.options.staleReservationMs);
    s.sweeper = setInterval(() => s.rateLimiter.sweep(), Math.max(ctx.options.rateLimit.windowMs, 1000));
    s.sweeper.unref();
  },

  async stop(ctx) {
    const s = state.get(ctx.container);
    if (!s) return;
    clearInterval(s.sweeper);
    await s.admission.releaseAll('shutdown');
    await s.wallet.releaseOpen('shutdown');
  },
});
