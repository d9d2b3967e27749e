import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errors, type RateLimiter } from '@sawt/core';
import { NOW_MS } from './slots.js';

/**
 * Sliding-window log: drop hits older than the window, refuse when `max` remain
 * (returning the ms until the oldest leaves the window), else record this hit.
 * One script, so two nodes can never both take the last place.
 */
const HIT = `${NOW_MS}
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 0
`;

/** Per-key request limit shared by every node: at most `max` requests in any `windowMs`. */
export class RedisSlidingWindowRateLimiter implements RateLimiter {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly settings: { windowMs: number; max: number },
  ) {}

  async hit(keyId: string): Promise<void> {
    const { windowMs, max } = this.settings;
    if (max === 0) return;
    const waitMs = Number(await this.redis.eval(HIT, 1, `${this.prefix}rate:${keyId}`, windowMs, max, randomUUID()));
    if (waitMs > 0) throw errors.rateLimit(Math.max(1, Math.ceil(waitMs / 1000)));
  }
}
