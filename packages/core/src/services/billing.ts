/** Wallets, admission and limits (the billing plugin; the Redis plugin shares the limits across nodes). */
import type { Knex } from 'knex';
import type { Account, AuthContext, Plan } from './auth.js';

export interface WalletBalance {
  accountId: string;
  /** All amounts in integer micro-units. */
  balance: number;
  reserved: number;
  available: number;
}

export interface LedgerEntry {
  id: string;
  accountId: string;
  kind: 'topup' | 'reserve' | 'settle' | 'release' | 'adjust';
  amount: number;
  balanceAfter: number;
  requestId: string | null;
  reservationId: string | null;
  description: string | null;
  createdAt: string;
}

export interface WalletReservation {
  readonly id: string;
  readonly accountId: string;
  readonly amount: number;
  /** Charges `amount` (≤ reserved; default all) and frees the rest. Idempotent; charges nothing once the lease was swept. */
  settle(amount?: number, note?: string): Promise<void>;
  /** Frees the reservation and gives the key's characters back. Idempotent; no-op after settle. */
  release(reason: string): Promise<void>;
}

/** What a reservation also holds of the key's character quota (given back on release). */
export interface QuotaHold {
  keyId: string;
  chars: number;
}

export interface Wallet {
  balance(accountId: string): Promise<WalletBalance>;
  topUp(accountId: string, amountMicro: number, meta?: { requestId?: string; description?: string }): Promise<WalletBalance>;
  /** Creates an account and its wallet with an opening balance, in one transaction. */
  openAccount(input: { name: string; plan: Plan; balanceMicro: number; description?: string }): Promise<{ account: Account; balance: WalletBalance }>;
  /**
   * Atomically holds `amountMicro` and the `quota` characters (42903, 40201). The reservation is leased
   * to this process (renewed by heartbeat); a dead owner's are released by the survivors.
   */
  reserve(accountId: string, amountMicro: number, meta: { requestId: string; description?: string; quota?: QuotaHold }): Promise<WalletReservation>;
  /** Newest first. */
  ledger(accountId: string, opts?: { limit?: number }): Promise<LedgerEntry[]>;
  /** reserve() for durable work (a long-form job): no lease, no slot; whoever finishes it settles it via reservation(id). */
  reserveDurable(accountId: string, amountMicro: number, meta: { requestId: string; description?: string; quota?: QuotaHold }): Promise<WalletReservation>;
  /** A handle to the open reservation `id` (e.g. a durable one after a restart); null when it is closed or unknown. */
  reservation(id: string): Promise<WalletReservation | null>;
}

export interface ConcurrencySlot {
  /** Gives the slot back; resolves once the counter took it off, never rejects. Idempotent. */
  release(): Promise<void>;
}

export interface ConcurrencyLimiter {
  /** Takes a slot for the account or throws SawtError 42901 (limit null = unlimited). */
  acquire(accountId: string, limit: number | null): Promise<ConcurrencySlot>;
  inFlight(accountId: string): Promise<number>;
}

export interface RateLimiter {
  /** Counts one request for the key; throws SawtError 42902 with Retry-After when over the window's budget. */
  hit(keyId: string): Promise<void>;
}

/** Limits shared by every node of a cluster (the Redis plugin), used instead of billing's in-process ones. */
export interface SharedLimits {
  /** The plan concurrency limiter: slots are leases that a dead node's heartbeat stops renewing. */
  readonly concurrency: ConcurrencyLimiter;
  /** A per-key limiter of `max` requests in any sliding window of `windowMs` (0 = unlimited). */
  rateLimiter(settings: { windowMs: number; max: number }): RateLimiter;
}

/** A key's characters as a transaction that holds its row sees them. */
export interface KeyUsage {
  /** null: the key has no quota (usage is still counted). */
  quotaChars: number | null;
  usedChars: number;
}

/** The per-key character quota (owned by auth), taken inside the wallet's transaction `trx`. */
export interface CharacterQuota {
  /** Takes `chars` in one conditional write; throws SawtError 42903 when it would pass the quota, 40101 for a deleted key. */
  take(trx: Knex, keyId: string, chars: number): Promise<void>;
  /** Gives `chars` back (never below zero). */
  giveBack(trx: Knex, keyId: string, chars: number): Promise<void>;
  /** Locks the keys' rows (in id order: no deadlock) until `trx` ends and reads their usage (deleted keys absent). */
  lockUsage(trx: Knex, keyIds: string[]): Promise<Map<string, KeyUsage>>;
  /** Adds characters to each key's usage (checked with lockUsage in the same transaction). */
  addUsage(trx: Knex, chars: Map<string, number>): Promise<void>;
}

/** One paid unit of synthesis work: quota, concurrency slot and money, taken together and given back together. */
export interface Admission {
  readonly requestId: string;
  readonly costMicro: number;
  /** Charge the reservation (default: the full cost) and free the slot. Idempotent. */
  settle(costMicro?: number, note?: string): Promise<void>;
  /** Frees the slot before the last bytes go out, so the client's next request is not refused for it. Idempotent. */
  freeSlot(): Promise<void>;
  /** Free everything without charging. Idempotent; no-op after settle. */
  release(reason: string): Promise<void>;
}

export interface AdmissionControl {
  /** Checks quota (42903) and concurrency (42901) and reserves the money (40201), undoing all on a failure. */
  admit(input: { auth: AuthContext; requestId: string; chars: number; costMicro: number; description: string; concurrency?: boolean }): Promise<Admission>;
  /** Takes only the concurrency slot (42901), for work that holds it before it knows its price (uploads). */
  holdSlot(auth: AuthContext): Promise<ConcurrencySlot>;
  /** Releases every open admission (graceful shutdown). */
  releaseAll(reason: string): Promise<void>;
}
