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
  /**
   * Charges `amount` (≤ reserved; default all of it) and frees the rest; the key's
   * characters stay used. Idempotent. Conditional on the reservation still being
   * open: a late settle after its lease was swept charges nothing (see Wallet). `note`
   * describes a partial charge in the ledger.
   */
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
  /**
   * Creates an account and its wallet with an opening balance (0 allowed) in one
   * transaction: either both exist afterwards or neither.
   */
  openAccount(input: { name: string; plan: Plan; balanceMicro: number; description?: string }): Promise<{ account: Account; balance: WalletBalance }>;
  /**
   * Atomically holds `amountMicro` and, with `quota`, the key's characters, in one
   * transaction: throws SawtError 42903 when the quota would be passed, 40201 when
   * the available balance is short. The reservation is leased to this process
   * (owner + expiry, renewed by heartbeat); a dead owner's reservations are
   * released by the survivors.
   */
  reserve(accountId: string, amountMicro: number, meta: { requestId: string; description?: string; quota?: QuotaHold }): Promise<WalletReservation>;
  /** Newest first. */
  ledger(accountId: string, opts?: { limit?: number }): Promise<LedgerEntry[]>;
  /**
   * Like reserve(), but the reservation belongs to durable work (a long-form job) rather than to
   * this process: no lease owner, so no sweep releases it when a process dies and shutdown keeps it
   * open; no concurrency slot. Whoever finishes the work, on any node, settles or releases it
   * through reservation(id).
   */
  reserveDurable(accountId: string, amountMicro: number, meta: { requestId: string; description?: string; quota?: QuotaHold }): Promise<WalletReservation>;
  /** A handle to the open reservation `id` (e.g. a durable one after a restart); null when it is closed or unknown. */
  reservation(id: string): Promise<WalletReservation | null>;
}

export interface ConcurrencySlot {
  /**
   * Gives the slot back. Resolves once whoever counts it (this process, the primary of
   * `serve --workers`, Redis) has taken it off the count, so a request the client sends
   * afterwards is not refused for it; never rejects (a lost release expires or dies with its
   * holder). Idempotent.
   */
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

/**
 * Limits shared by every node of a cluster (the Redis plugin): billing uses these
 * instead of its in-process limiter and counter when a plugin provides them.
 */
export interface SharedLimits {
  /** The plan concurrency limiter: slots are leases that a dead node's heartbeat stops renewing. */
  readonly concurrency: ConcurrencyLimiter;
  /** A per-key limiter of `max` requests in any sliding window of `windowMs` (0 = unlimited). */
  rateLimiter(settings: { windowMs: number; max: number }): RateLimiter;
}

/**
 * The per-key character quota (api_keys.used_chars, owned by auth). Both calls run
 * inside the caller's transaction (`trx`, the wallet's reservation), so characters
 * are taken and given back together with the money they pay for.
 */
/** A key's characters as a transaction that holds its row sees them. */
export interface KeyUsage {
  /** null: the key has no quota (usage is still counted). */
  quotaChars: number | null;
  usedChars: number;
}

export interface CharacterQuota {
  /** Takes `chars` in one conditional write; throws SawtError 42903 when it would pass the quota, 40101 for a deleted key. */
  take(trx: Knex, keyId: string, chars: number): Promise<void>;
  /** Gives `chars` back (never below zero). */
  giveBack(trx: Knex, keyId: string, chars: number): Promise<void>;
  /**
   * Locks the keys' rows until `trx` ends and reads their usage (deleted keys are absent), for a
   * caller that checks several takes at once and then writes them with addUsage in the same
   * transaction. Rows are locked in id order, so two such transactions cannot deadlock.
   */
  lockUsage(trx: Knex, keyIds: string[]): Promise<Map<string, KeyUsage>>;
  /** Adds characters to each key's usage (checked with lockUsage in the same transaction). */
  addUsage(trx: Knex, chars: Map<string, number>): Promise<void>;
}

/** One paid unit of synthesis work: quota, concurrency slot and money, taken together and given back together. */
export interface Admission {
  readonly requestId: string;
  readonly costMicro: number;
  /**
   * Charge the reservation (default: the full cost) and free the slot. Idempotent. `note`, with a
   * partial charge, goes into the ledger (e.g. who cut the stream).
   */
  settle(costMicro?: number, note?: string): Promise<void>;
  /**
   * Frees the concurrency slot now, before the money is settled: a transport calls it before it
   * writes the last bytes of a response, so that a request the client sends once it has them is
   * never refused for concurrency. Resolves once the limiter acknowledged. Idempotent.
   */
  freeSlot(): Promise<void>;
  /** Free everything without charging. Idempotent; no-op after settle. */
  release(reason: string): Promise<void>;
}

export interface AdmissionControl {
  /**
   * Admits a synthesis of `chars` characters costing `costMicro`: checks the key's
   * quota (42903), the plan's concurrency (42901) and reserves the money (40201),
   * undoing what it took if a later step fails.
   */
  admit(input: { auth: AuthContext; requestId: string; chars: number; costMicro: number; description: string; concurrency?: boolean }): Promise<Admission>;
  /**
   * Takes only the plan's concurrency slot (42901), for work that must hold it before it
   * knows its price (uploads: the slot comes before any decoding; the money follows with
   * admit({ concurrency: false })). The caller releases the slot when the work ends.
   */
  holdSlot(auth: AuthContext): Promise<ConcurrencySlot>;
  /** Releases every open admission (graceful shutdown). */
  releaseAll(reason: string): Promise<void>;
}
