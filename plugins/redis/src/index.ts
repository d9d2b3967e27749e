import { Redis } from 'ioredis';
import { definePlugin, tokens } from '@sawt/core';
import { RedisConcurrencyLimiter } from './slots.js';
import { RedisSlidingWindowRateLimiter } from './rate.js';

const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // redis:// URL; SAWT_REDIS_URL when absent.
    url: { type: 'string', minLength: 1 },
    // Prefix of every key this node writes (several installations can share one Redis); SAWT_REDIS_PREFIX, else "sawt:".
    keyPrefix: { type: 'string' },
    slots: {
      type: 'object', additionalProperties: false, default: {},
      properties: { ttlMs: { type: 'integer', minimum: 1000, default: 15_000 }, heartbeatMs: { type: 'integer', minimum: 100, default: 5_000 } },
    },
  },
} as const;

/** Concurrency slots (leases with heartbeat) and per-key rate limits shared by every node, on Redis. */
export default definePlugin({
  id: 'redis',
  provides: [tokens.sharedLimits],
  configSchema,

  register(ctx) {
    const { options } = ctx;
    const url = options.url ?? process.env.SAWT_REDIS_URL;
    if (!url) throw new Error("The redis plugin needs a server: set its 'url' option or SAWT_REDIS_URL (e.g. redis://127.0.0.1:6379)");
    if (options.slots.heartbeatMs * 2 > options.slots.ttlMs) {
      throw new Error(`redis: slots.heartbeatMs (${options.slots.heartbeatMs}) must be at most half of slots.ttlMs (${options.slots.ttlMs}), or a live node's slots could expire between heartbeats`);
    }
    const prefix = options.keyPrefix ?? process.env.SAWT_REDIS_PREFIX ?? 'sawt:';
    // Connects in start(); commands wait for the connection rather than failing at once.
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableAutoPipelining: true });
    redis.on('error', (err: Error) => ctx.logger.warn({ err }, 'redis connection error'));
    const concurrency = new RedisConcurrencyLimiter(redis, prefix, options.slots, ctx.logger);
    ctx.provide(tokens.sharedLimits, { concurrency, rateLimiter: (settings) => new RedisSlidingWindowRateLimiter(redis, prefix, settings) });
    return {
      async start() {
        await redis.connect();
        concurrency.start();
      },
      async stop() {
        concurrency.stop();
        await redis.quit().catch(() => redis.disconnect());
      },
    };
  },
});
