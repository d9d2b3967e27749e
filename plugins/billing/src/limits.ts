import { errors, systemClock, type Clock, type ConcurrencySlot, type ConcurrencyLimiter, type RateLimiter } from '@sawt/core';

/**
 * In-flight synthesis per account, counted in this process. A shared (Redis)
 * limiter for several server instances implements the same async interface.
 */
export class InMemoryConcurrencyLimiter implements ConcurrencyLimiter {
  private readonly counts = new Map<string, number>();

  async acquire(accountId: string, limit: number | null): Promise<ConcurrencySlot> {
    // Check and increment run in one synchronous step, so concurrent calls cannot both pass.
    const current = this.counts.get(accountId) ?? 0;
    if (limit !== null && current >= limit) throw errors.concurrency(limit, current);
    this.counts.set(accountId, current + 1);
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        const left = (this.counts.get(accountId) ?? 1) - 1;
        if (left > 0) this.counts.set(accountId, left);
        else this.counts.delete(accountId);
      },
    };
  }

  async inFlight(accountId: string): Promise<number> {
    return this.counts.get(accountId) ?? 0;
  }
}

export interface RateLimitSettings {
  windowMs: number;
  /** Requests per window and key; 0 = unlimited. */
  max: number;
}

/** Fixed-window request counter per API key, in this process. */
export class FixedWindowRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly settings: RateLimitSettings, private readonly clock: Clock = systemClock) {}

  async hit(keyId: string): Promise<void> {
    const { windowMs, max } = this.settings;
    if (max === 0) return;
    const t = this.clock.now();
    let w = this.windows.get(keyId);
    if (!w || t >= w.start + windowMs) {
      w = { start: t, count: 0 };
      this.windows.set(keyId, w);
    }
    if (w.count >= max) throw errors.rateLimit(Math.max(1, Math.ceil((w.start + windowMs - t) / 1000)));
    w.count++;
  }

  /** Forgets windows that have ended, so idle keys do not accumulate. */
  sweep(): void {
    const t = this.clock.now();
    for (const [key, w] of this.windows) if (t >= w.start + this.settings.windowMs) this.windows.delete(key);
  }
}
