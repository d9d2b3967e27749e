import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { errors, within, type ConcurrencyLimiter, type ConcurrencySlot, type Logger } from '@sawt/core';

/** ttlMs: a slot whose holder stopped renewing it is free again after this long; heartbeatMs: how often a node renews its slots. */
export interface SlotLeaseSettings { ttlMs: number; heartbeatMs: number }

/** Lua: `now`, Redis server time in ms (so the nodes' clocks do not matter). */
export const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** How long a release waits for Redis to acknowledge it. */
const RELEASE_WAIT_MS = 2000;

/** Take a slot: drop expired leases, add ours unless the account holds `limit` (-1 = unlimited); returns the count after, or -(count held). */
const ACQUIRE = `${NOW_MS}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[1])
if limit >= 0 and held >= limit then return -held end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return held + 1
`;

/** Push the lease of slots still held (XX: a slot already taken away stays away). */
const RENEW = `${NOW_MS}
for i = 1, #KEYS do
  redis.call('ZADD', KEYS[i], 'XX', now + tonumber(ARGV[1]), ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[1]) * 2)
end
return #KEYS
`;

const COUNT = `${NOW_MS}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
`;

/**
 * The plan concurrency limiter of a cluster: an account's slots are members of one
 * sorted set scored by lease expiry. The node holding a slot renews it on a
 * heartbeat; a node that dies (kill -9, lost network) stops renewing, and its slots
 * drop out at their expiry, at most ttlMs later, with no one having to notice.
 */
export class RedisConcurrencyLimiter implements ConcurrencyLimiter {
  private readonly held = new Map<string, string>(); // slot id -> redis key
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly settings: SlotLeaseSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.renew().catch((err) => this.logger.error({ err }, 'renewing concurrency slot leases failed')), this.settings.heartbeatMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private key(accountId: string): string {
    return `${this.prefix}slots:${accountId}`;
  }

  async acquire(accountId: string, limit: number | null): Promise<ConcurrencySlot> {
    const id = randomUUID();
    const key = this.key(accountId);
    const n = Number(await this.redis.eval(ACQUIRE, 1, key, limit ?? -1, this.settings.ttlMs, id));
    if (n < 0) throw errors.concurrency(limit!, -n);
    this.held.set(id, key);
    let released: Promise<void> | null = null;
    return {
      // Resolves once Redis removed the slot (a client's next request, even on another node, then finds
      // it free), or after RELEASE_WAIT_MS: if Redis is unreachable the lease expires on its own.
      release: () => (released ??= this.free(key, id, accountId)),
    };
  }

  private async free(key: string, id: string, accountId: string): Promise<void> {
    this.held.delete(id);
    const removed = this.redis.zrem(key, id).then(
      () => undefined,
      (err: unknown) => this.logger.warn({ err, accountId }, 'could not free a concurrency slot; its lease will expire'),
    );
    await within(removed, RELEASE_WAIT_MS);
  }

  async inFlight(accountId: string): Promise<number> {
    return Number(await this.redis.eval(COUNT, 1, this.key(accountId)));
  }

  /** Renews every slot this process holds, in one round trip. */
  async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const ids = [...this.held.keys()];
    await this.redis.eval(RENEW, ids.length, ...ids.map((id) => this.held.get(id)!), this.settings.ttlMs, ...ids);
  }
}
