import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  SawtError, errors, formatMicro, lockRows,
  type Account, type AccountStore, type CharacterQuota, type Database, type LedgerEntry, type Logger, type Plan, type QuotaHold, type Wallet, type WalletBalance, type WalletReservation,
} from '@sawt/core';
import type { OrphanReservation, ReservationLeases } from './leases.js';
import { WalletWriteQueue, type CloseRequest, type HeldReservation, type ReserveRequest } from './write-queue.js';

interface WalletRow {
  account_id: string;
  /** bigint columns come back as strings from PostgreSQL. */
  balance: number | string;
  reserved: number | string;
}

type LedgerKind = LedgerEntry['kind'];

const now = () => new Date().toISOString();

/** The lease of a durable reservation (reserveDurable): later than any sweep's now, so never expired. */
const DURABLE_LEASE_EXPIRY = '9999-12-31T23:59:59.999Z';

function requireMicro(name: string, value: unknown, { positive }: { positive: boolean }): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < (positive ? 1 : 0)) {
    throw new RangeError(`Expected ${positive ? 'a positive' : 'a non-negative'} integer of micro-units for ${name} but received ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Wallets in the database. Every change of balance or reserved happens in one
 * short transaction together with its ledger row, and starts with a write (or, for
 * reservations, lockRows), so on SQLite the write lock is taken first (no lock upgrade
 * that could fail under another process) and on PostgreSQL the row lock serialises
 * concurrent requests. Reservations asked for together share one transaction, each
 * decided as alone, and so do closes (settle, release); reservations go first (WalletWriteQueue).
 *
 * A reservation also holds the key's quota characters (auth's CharacterQuota, in
 * the same transaction), and is leased to the process that took it (leases.ts):
 * settle and release are conditional on it still being open, so whichever of the
 * owner and a sweeper closes it first wins and the other changes nothing. A late
 * settle after a sweep released it (the owner was paused past its lease) is
 * dropped: the client is not charged, rather than the money being both given back
 * and taken.
 *
 * Ledger amounts are ≥ 0; per account, balance = Σtopup − Σsettle and
 * reserved = Σreserve − Σsettle(reserved part) − Σrelease, where a partial settle
 * writes a settle row for the charge and a release row for the unused rest.
 */
export class SqlWallet implements Wallet {
  /** Reservations this process opened and has not closed: released on stop(). */
  private readonly open = new Map<string, SqlReservation>();
  /** Accounts known to have a wallet row (ensureWallet). */
  private readonly withWallet = new Set<string>();
  private readonly writes = new WalletWriteQueue((batch) => this.writeReservations(batch), (batch) => this.writeCloses(batch));

  /** Reservations this process holds open (the metrics' gauge). */
  get openReservations(): number {
    return this.open.size;
  }

  constructor(
    private readonly db: Database,
    private readonly accounts: AccountStore,
    private readonly quota: CharacterQuota,
    private readonly leases: ReservationLeases,
    private readonly logger: Logger,
  ) {}

  private get knex(): Knex {
    return this.db.knex;
  }

  /** Includes every settle and release this process asked for before (see WalletWriteQueue). */
  async balance(accountId: string): Promise<WalletBalance> {
    await this.writes.closesWritten();
    const row = await this.knex<WalletRow>('wallets').where({ account_id: accountId }).first();
    if (!row) {
      await this.requireAccount(accountId);
      return { accountId, balance: 0, reserved: 0, available: 0 };
    }
    return toBalance(row);
  }

  async topUp(accountId: string, amountMicro: number, meta: { requestId?: string; description?: string } = {}): Promise<WalletBalance> {
    requireMicro('the top-up amount', amountMicro, { positive: true });
    await this.ensureWallet(accountId);
    return this.knex.transaction(async (trx) => {
      await trx('wallets').where({ account_id: accountId }).increment('balance', amountMicro);
      const row = await trx<WalletRow>('wallets').where({ account_id: accountId }).first();
      if (!Number.isSafeInteger(Number(row!.balance))) throw errors.validation('The balance would exceed the largest amount the wallet can hold');
      await this.writeLedger(trx, { accountId, kind: 'topup', amount: amountMicro, balanceAfter: Number(row!.balance), requestId: meta.requestId ?? null, description: meta.description ?? null });
      return toBalance(row!);
    });
  }

  async openAccount(input: { name: string; plan: Plan; balanceMicro: number; description?: string }): Promise<{ account: Account; balance: WalletBalance }> {
    const opening = requireMicro('the opening balance', input?.balanceMicro, { positive: false });
    return this.knex.transaction(async (trx) => {
      const account = await this.accounts.create({ name: input.name, plan: input.plan }, trx);
      await trx('wallets').insert({ account_id: account.id, balance: opening, reserved: 0, created_at: now() });
      if (opening > 0) {
        await this.writeLedger(trx, { accountId: account.id, kind: 'topup', amount: opening, balanceAfter: opening, requestId: null, description: input.description ?? 'opening balance' });
      }
      return { account, balance: { accountId: account.id, balance: opening, reserved: 0, available: opening } };
    });
  }

  async reserve(accountId: string, amountMicro: number, meta: { requestId: string; description?: string; quota?: QuotaHold }): Promise<WalletReservation> {
    requireMicro('the reservation', amountMicro, { positive: false });
    if (typeof meta?.requestId !== 'string' || !meta.requestId) throw new RangeError('A reservation needs the request id it pays for');
    const quota = meta.quota ?? null;
    if (quota) requireMicro('the quota characters', quota.chars, { positive: false });
    await this.ensureWallet(accountId);
    const id = randomUUID();
    await this.writes.reserve({ id, accountId, amount: amountMicro, requestId: meta.requestId, description: meta.description ?? null, quota });
    const reservation = new SqlReservation(this, { id, accountId, amount: amountMicro, requestId: meta.requestId, keyId: quota?.keyId ?? null, quotaChars: quota?.chars ?? 0 });
    this.open.set(id, reservation);
    return reservation;
  }

  /**
   * A reservation for durable work (a long-form job): taken like any other, then handed from this
   * process's lease to none, with a lease that never runs out, so neither a sweep (its owner died)
   * nor this process's shutdown releases it; the work's finisher closes it through reservation(id).
   */
  async reserveDurable(accountId: string, amountMicro: number, meta: { requestId: string; description?: string; quota?: QuotaHold }): Promise<WalletReservation> {
    const reservation = await this.reserve(accountId, amountMicro, meta);
    this.open.delete(reservation.id);
    await this.knex('reservations').where({ id: reservation.id, status: 'open' }).update({ owner_id: null, lease_expires_at: DURABLE_LEASE_EXPIRY });
    return reservation;
  }

  async reservation(id: string): Promise<WalletReservation | null> {
    const row = await this.knex('reservations').where({ id, status: 'open' }).first('id', 'account_id', 'amount', 'request_id', 'key_id', 'quota_chars');
    if (!row) return null;
    return new SqlReservation(this, { id: row.id, accountId: row.account_id, amount: Number(row.amount), requestId: row.request_id, keyId: row.key_id ?? null, quotaChars: Number(row.quota_chars) });
  }

  /**
   * One transaction for a batch of reservations: the wallets' and keys' rows are locked and read,
   * each request is decided in arrival order as its own conditional writes would decide it (the
   * key's characters first, so 42903 wins over 40201; then the money: two requests can never
   * hold the same money), and the accepted ones are written together.
   */
  private async writeReservations(batch: ReserveRequest[]): Promise<Array<SawtError | null>> {
    return this.knex.transaction(async (trx) => {
      // Statements of one step are sent together (the connection runs them one after the other):
      // a round trip per step, not per statement. The wallets are asked first.
      const keyIds = batch.flatMap((r) => (r.quota ? [r.quota.keyId] : []));
      const [rows, keys] = await Promise.all([
        lockRows<WalletRow>(trx, { table: 'wallets', id: 'account_id', ids: batch.map((r) => r.accountId), columns: ['account_id', 'balance', 'reserved'], touch: 'reserved' }),
        keyIds.length ? this.quota.lockUsage(trx, keyIds) : new Map<string, never>(),
      ]);
      const wallets = new Map(rows.map((r) => [r.account_id, { balance: Number(r.balance), reserved: Number(r.reserved) }]));
      const outcomes: Array<SawtError | null> = [];
      const accepted: ReserveRequest[] = [];
      const chars = new Map<string, number>();
      const amounts = new Map<string, number>();
      for (const r of batch) {
        const key = r.quota ? keys.get(r.quota.keyId) : undefined;
        if (r.quota && !key) {
          outcomes.push(errors.keyDeleted());
          continue;
        }
        if (r.quota && key && key.quotaChars !== null && key.usedChars + r.quota.chars > key.quotaChars) {
          outcomes.push(errors.quotaExceeded(key.quotaChars, key.usedChars));
          continue;
        }
        const wallet = wallets.get(r.accountId) ?? { balance: 0, reserved: 0 };
        if (wallet.balance - wallet.reserved < r.amount) {
          outcomes.push(errors.insufficientBalance(formatMicro(r.amount), formatMicro(wallet.balance - wallet.reserved)));
          continue;
        }
        if (r.quota && key) {
          key.usedChars += r.quota.chars;
          chars.set(r.quota.keyId, (chars.get(r.quota.keyId) ?? 0) + r.quota.chars);
        }
        wallet.reserved += r.amount;
        amounts.set(r.accountId, (amounts.get(r.accountId) ?? 0) + r.amount);
        accepted.push(r);
        outcomes.push(null);
      }
      if (accepted.length === 0) return outcomes;
      const createdAt = now();
      await Promise.all([
        this.quota.addUsage(trx, chars),
        ...[...amounts].filter(([, amount]) => amount > 0).map(([accountId, amount]) => trx('wallets').where({ account_id: accountId }).increment('reserved', amount)),
        trx('reservations').insert(accepted.map((r) => ({
          id: r.id, account_id: r.accountId, amount: r.amount, status: 'open', request_id: r.requestId, description: r.description, created_at: createdAt,
          owner_id: this.leases.ownerId, lease_expires_at: this.leases.expiry(), key_id: r.quota?.keyId ?? null, quota_chars: r.quota?.chars ?? 0,
        }))),
        trx('ledger').insert(accepted.map((r) => ledgerRow({
          accountId: r.accountId, kind: 'reserve', amount: r.amount, balanceAfter: wallets.get(r.accountId)!.balance, requestId: r.requestId, reservationId: r.id, description: r.description,
        }))),
      ]);
      return outcomes;
    });
  }

  async ledger(accountId: string, opts: { limit?: number } = {}): Promise<LedgerEntry[]> {
    await this.writes.closesWritten();
    const limit = Math.min(Math.max(Math.trunc(opts.limit ?? 100), 1), 100_000);
    const rows = await this.knex('ledger').where({ account_id: accountId }).orderBy('id', 'desc').limit(limit);
    return rows.map((r: Record<string, unknown>) => ({
      id: String(r.id),
      accountId: r.account_id as string,
      kind: r.kind as LedgerKind,
      amount: Number(r.amount),
      balanceAfter: Number(r.balance_after),
      requestId: (r.request_id as string | null) ?? null,
      reservationId: (r.reservation_id as string | null) ?? null,
      description: (r.description as string | null) ?? null,
      createdAt: r.created_at as string,
    }));
  }

  /**
   * Closes an open reservation, charging `charge` (null = release all of it and give the key's
   * characters back); closes asked for together share one transaction (writeCloses). False when
   * it was already closed.
   */
  async close(r: HeldReservation, charge: number | null, reason: string | null): Promise<boolean> {
    const closed = await this.writes.close({ held: r, charge, reason });
    this.open.delete(r.id);
    if (!closed && charge !== null) {
      const row = await this.knex('reservations').where({ id: r.id }).first('status', 'release_reason');
      if (row?.status === 'released') {
        this.logger.warn({ reservationId: r.id, requestId: r.requestId, releasedBecause: row.release_reason }, 'late settle dropped: the reservation was already released (lease swept), so the request is not charged');
      }
    }
    return closed;
  }

  /**
   * One transaction for a batch of closes: the reservations still open and their wallets are
   * locked and read, each close is applied in order as alone (a reservation closed already, or
   * twice in the batch, changes nothing), and the writes go together: the reservations' rows,
   * each wallet once (balance less the charges, reserved less the amounts), the keys' characters
   * given back by releases, and the ledger rows with each one's balance after it.
   */
  private async writeCloses(batch: CloseRequest[]): Promise<boolean[]> {
    const closedAt = now();
    return this.knex.transaction(async (trx) => {
      const [open, rows] = await Promise.all([
        lockRows<{ id: string }>(trx, { table: 'reservations', id: 'id', ids: batch.map((c) => c.held.id), columns: ['id'], touch: 'status', where: (q) => q.where({ status: 'open' }) }),
        lockRows<WalletRow>(trx, { table: 'wallets', id: 'account_id', ids: batch.map((c) => c.held.accountId), columns: ['account_id', 'balance', 'reserved'], touch: 'reserved' }),
      ]);
      const stillOpen = new Set(open.map((r) => r.id));
      const balances = new Map(rows.map((r) => [r.account_id, Number(r.balance)]));
      const wallets = new Map<string, { charged: number; freed: number }>();
      const givenBack = new Map<string, number>();
      const ledger: Record<string, unknown>[] = [];
      const writes: Promise<unknown>[] = [];
      const outcomes = batch.map(({ held: r, charge, reason }) => {
        if (!stillOpen.delete(r.id)) return false;
        const balance = balances.get(r.accountId);
        if (balance === undefined) throw new Error(`no wallet for account ${r.accountId} of reservation ${r.id}`);
        const balanceAfter = balance - (charge ?? 0);
        balances.set(r.accountId, balanceAfter);
        const w = wallets.get(r.accountId) ?? { charged: 0, freed: 0 };
        w.charged += charge ?? 0;
        w.freed += r.amount;
        wallets.set(r.accountId, w);
        // A release gives the key's characters back; a partial charge (a stream cut short) the characters it does not charge.
        const back = charge === null ? r.quotaChars : r.amount > 0 ? r.quotaChars - Math.ceil((r.quotaChars * charge) / r.amount) : 0;
        if (back > 0 && r.keyId) givenBack.set(r.keyId, (givenBack.get(r.keyId) ?? 0) + back);
        writes.push(trx('reservations').where({ id: r.id }).update(charge === null ? { status: 'released', release_reason: reason, closed_at: closedAt } : { status: 'settled', charged: charge, closed_at: closedAt }));
        const unused = charge === null ? r.amount : r.amount - charge;
        const base = { accountId: r.accountId, balanceAfter, requestId: r.requestId, reservationId: r.id };
        // A settle's reason is the note of a partial charge (what was delivered, who cut the stream).
        if (charge !== null) ledger.push(ledgerRow({ ...base, kind: 'settle', amount: charge, description: reason }));
        if (unused > 0 || charge === null) ledger.push(ledgerRow({ ...base, kind: 'release', amount: unused, description: charge === null ? reason : reason ? `unused part of the reservation: ${reason}` : 'unused part of the reservation' }));
        return true;
      });
      for (const [accountId, w] of wallets) {
        writes.push(trx('wallets').where({ account_id: accountId }).update({ balance: trx.raw('balance - ?', [w.charged]), reserved: trx.raw('reserved - ?', [w.freed]) }));
      }
      for (const [keyId, chars] of givenBack) writes.push(this.quota.giveBack(trx, keyId, chars));
      if (ledger.length) writes.push(trx('ledger').insert(ledger));
      await Promise.all(writes);
      return outcomes;
    });
  }

  /** Releases a reservation whose owner is gone (called by the lease sweep). */
  releaseOrphan(row: OrphanReservation, reason: string): Promise<boolean> {
    return this.close(
      { id: row.id, accountId: row.account_id, amount: Number(row.amount), requestId: row.request_id, keyId: row.key_id, quotaChars: Number(row.quota_chars) },
      null,
      reason,
    );
  }

  /** Releases every reservation this process still holds (shutdown). */
  async releaseOpen(reason: string): Promise<void> {
    await Promise.all(
      [...this.open.values()].map((r) => r.release(reason).catch((err) => this.logger.error({ err, reservationId: r.id }, 'failed to release a wallet reservation'))),
    );
  }

  private async writeLedger(trx: Knex.Transaction, e: LedgerWrite): Promise<void> {
    await trx('ledger').insert(ledgerRow(e));
  }

  /**
   * Creates the account's wallet row on first use (accounts are created by auth). Wallet rows are
   * never deleted, so an account seen with one is remembered: no query on the request path after that.
   */
  private async ensureWallet(accountId: string): Promise<void> {
    if (this.withWallet.has(accountId)) return;
    if (!(await this.knex('wallets').where({ account_id: accountId }).first('account_id'))) {
      await this.requireAccount(accountId);
      await this.knex('wallets').insert({ account_id: accountId, balance: 0, reserved: 0, created_at: now() }).onConflict('account_id').ignore();
    }
    this.withWallet.add(accountId);
  }

  private async requireAccount(accountId: string): Promise<void> {
    if (!(await this.accounts.get(accountId))) throw new SawtError('notFound', `Account '${accountId}' not found`);
  }
}

interface LedgerWrite {
  accountId: string;
  kind: LedgerKind;
  amount: number;
  balanceAfter: number;
  requestId: string | null;
  reservationId?: string;
  description: string | null;
}

function ledgerRow(e: LedgerWrite): Record<string, unknown> {
  return {
    account_id: e.accountId,
    kind: e.kind,
    amount: e.amount,
    balance_after: e.balanceAfter,
    request_id: e.requestId,
    reservation_id: e.reservationId ?? null,
    description: e.description,
    created_at: now(),
  };
}

function toBalance(row: WalletRow): WalletBalance {
  const balance = Number(row.balance);
  const reserved = Number(row.reserved);
  return { accountId: row.account_id, balance, reserved, available: balance - reserved };
}

export class SqlReservation implements WalletReservation {
  private closing: Promise<void> | null = null;
  readonly id: string;
  readonly accountId: string;
  readonly amount: number;
  readonly requestId: string;

  constructor(private readonly wallet: SqlWallet, private readonly held: HeldReservation) {
    ({ id: this.id, accountId: this.accountId, amount: this.amount, requestId: this.requestId } = held);
  }

  async settle(amount?: number, note?: string): Promise<void> {
    const charge = amount ?? this.amount;
    requireMicro('the settled amount', charge, { positive: false });
    if (charge > this.amount) throw new RangeError(`Cannot settle ${charge} micro-units on a reservation of ${this.amount}`);
    return this.closeOnce(charge, note ?? null);
  }

  release(reason: string): Promise<void> {
    return this.closeOnce(null, reason);
  }

  /** The first settle or release wins; a failed attempt (database error) may be retried. */
  private closeOnce(charge: number | null, reason: string | null): Promise<void> {
    this.closing ??= this.wallet.close(this.held, charge, reason).then(
      () => undefined,
      (e) => {
        this.closing = null;
        throw e;
      },
    );
    return this.closing;
  }
}
