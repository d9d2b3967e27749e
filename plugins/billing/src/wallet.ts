import { randomUUID } from 'node:crypto';
import { SawtError, errors, formatMicro, lockRows, type Account, type AccountStore, type CharacterQuota, type Database, type LedgerEntry, type Logger, type Plan, type QuotaHold, type Wallet, type WalletBalance, type WalletReservation } from '@sawt/core';
import type { OrphanReservation, ReservationLeases } from './leases.js';
import { WalletWriteQueue, type CloseRequest, type HeldReservation, type ReserveRequest } from './write-queue.js';

/** bigint columns come back as strings from PostgreSQL. */
interface WalletRow { account_id: string; balance: number | string; reserved: number | string }

const now = () => new Date().toISOString();
const add = <K>(counts: Map<K, number>, key: K, n: number) => counts.set(key, (counts.get(key) ?? 0) + n);

/** The lease of a durable reservation (reserveDurable): later than any sweep's now, so never expired. */
const DURABLE_LEASE_EXPIRY = '9999-12-31T23:59:59.999Z';

function requireMicro(name: string, value: unknown, { positive }: { positive: boolean }): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < (positive ? 1 : 0)) {
    throw new RangeError(`Expected ${positive ? 'a positive' : 'a non-negative'} integer of micro-units for ${name} but received ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Wallets in the database. Each change of balance or reserved is one short transaction with its
 * ledger row that starts with a write (or lockRows): SQLite takes its write lock first (no lock
 * upgrade to fail), PostgreSQL's row lock serialises concurrent requests. Requests asked for
 * together share one transaction, each decided as alone; reservations go first (WalletWriteQueue).
 *
 * A reservation also holds the key's quota characters (same transaction) and is leased to its
 * process (leases.ts). Closes apply only while it is open, so of the owner and a sweeper the first
 * wins; a late settle after a sweep released it is dropped (the client is not charged).
 *
 * Ledger amounts are ≥ 0; per account, balance = Σtopup − Σsettle and reserved = Σreserve −
 * Σsettle(reserved part) − Σrelease (a partial settle: a settle row, and a release row for the rest).
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

  /** Includes every settle and release this process asked for before (see WalletWriteQueue). */
  async balance(accountId: string): Promise<WalletBalance> {
    await this.writes.closesWritten();
    const row = await this.db.knex<WalletRow>('wallets').where({ account_id: accountId }).first();
    if (!row) {
      await this.requireAccount(accountId);
      return { accountId, balance: 0, reserved: 0, available: 0 };
    }
    return toBalance(row);
  }

  async topUp(accountId: string, amountMicro: number, meta: { requestId?: string; description?: string } = {}): Promise<WalletBalance> {
    requireMicro('the top-up amount', amountMicro, { positive: true });
    await this.ensureWallet(accountId);
    return this.db.knex.transaction(async (trx) => {
      await trx('wallets').where({ account_id: accountId }).increment('balance', amountMicro);
      const row = await trx<WalletRow>('wallets').where({ account_id: accountId }).first();
      if (!Number.isSafeInteger(Number(row!.balance))) throw errors.validation('The balance would exceed the largest amount the wallet can hold');
      await trx('ledger').insert(ledgerRow({ accountId, kind: 'topup', amount: amountMicro, balanceAfter: Number(row!.balance), requestId: meta.requestId ?? null, description: meta.description ?? null }));
      return toBalance(row!);
    });
  }

  async openAccount(input: { name: string; plan: Plan; balanceMicro: number; description?: string }): Promise<{ account: Account; balance: WalletBalance }> {
    const opening = requireMicro('the opening balance', input?.balanceMicro, { positive: false });
    return this.db.knex.transaction(async (trx) => {
      const account = await this.accounts.create({ name: input.name, plan: input.plan }, trx);
      await trx('wallets').insert({ account_id: account.id, balance: opening, reserved: 0, created_at: now() });
      if (opening > 0) {
        await trx('ledger').insert(ledgerRow({ accountId: account.id, kind: 'topup', amount: opening, balanceAfter: opening, requestId: null, description: input.description ?? 'opening balance' }));
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
   * For durable work (a long-form job): owned by no process, with a lease that never runs out, so
   * neither a sweep nor shutdown releases it; the work's finisher closes it through reservation(id).
   */
  async reserveDurable(accountId: string, amountMicro: number, meta: { requestId: string; description?: string; quota?: QuotaHold }): Promise<WalletReservation> {
    const reservation = await this.reserve(accountId, amountMicro, meta);
    this.open.delete(reservation.id);
    await this.db.knex('reservations').where({ id: reservation.id, status: 'open' }).update({ owner_id: null, lease_expires_at: DURABLE_LEASE_EXPIRY });
    return reservation;
  }

  async reservation(id: string): Promise<WalletReservation | null> {
    const row = await this.db.knex('reservations').where({ id, status: 'open' }).first('id', 'account_id', 'amount', 'request_id', 'key_id', 'quota_chars');
    return row ? new SqlReservation(this, toHeld(row)) : null;
  }

  /**
   * One transaction per batch: the rows are locked and read, each request decided in arrival order
   * as alone (characters first, so 42903 wins over 40201; then the money), the accepted written together.
   */
  private async writeReservations(batch: ReserveRequest[]): Promise<Array<SawtError | null>> {
    return this.db.knex.transaction(async (trx) => {
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
        const wallet = wallets.get(r.accountId) ?? { balance: 0, reserved: 0 };
        const refusal = r.quota && !key ? errors.keyDeleted()
          : r.quota && key && key.quotaChars !== null && key.usedChars + r.quota.chars > key.quotaChars ? errors.quotaExceeded(key.quotaChars, key.usedChars)
          : wallet.balance - wallet.reserved < r.amount ? errors.insufficientBalance(formatMicro(r.amount), formatMicro(wallet.balance - wallet.reserved))
          : null;
        outcomes.push(refusal);
        if (refusal) continue;
        if (r.quota && key) {
          key.usedChars += r.quota.chars;
          add(chars, r.quota.keyId, r.quota.chars);
        }
        wallet.reserved += r.amount;
        add(amounts, r.accountId, r.amount);
        accepted.push(r);
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
    const rows = await this.db.knex('ledger').where({ account_id: accountId }).orderBy('id', 'desc').limit(limit);
    return rows.map((r) => ({
      id: String(r.id), accountId: r.account_id, kind: r.kind, amount: Number(r.amount), balanceAfter: Number(r.balance_after),
      requestId: r.request_id ?? null, reservationId: r.reservation_id ?? null, description: r.description ?? null, createdAt: r.created_at,
    }));
  }

  /** Closes an open reservation charging `charge` (null: release it and give the characters back); false when already closed. */
  async close(r: HeldReservation, charge: number | null, reason: string | null): Promise<boolean> {
    const closed = await this.writes.close({ held: r, charge, reason });
    this.open.delete(r.id);
    if (!closed && charge !== null) {
      const row = await this.db.knex('reservations').where({ id: r.id }).first('status', 'release_reason');
      if (row?.status === 'released') {
        this.logger.warn({ reservationId: r.id, requestId: r.requestId, releasedBecause: row.release_reason }, 'late settle dropped: the reservation was already released (lease swept), so the request is not charged');
      }
    }
    return closed;
  }

  /**
   * One transaction per batch: the open reservations and their wallets are locked and read, each
   * close applied in order as alone (one closed already changes nothing), and the writes go together.
   */
  private async writeCloses(batch: CloseRequest[]): Promise<boolean[]> {
    const closedAt = now();
    return this.db.knex.transaction(async (trx) => {
      const [open, rows] = await Promise.all([
        lockRows<{ id: string }>(trx, { table: 'reservations', id: 'id', ids: batch.map((c) => c.held.id), columns: ['id'], touch: 'status', where: (q) => q.where({ status: 'open' }) }),
        lockRows<WalletRow>(trx, { table: 'wallets', id: 'account_id', ids: batch.map((c) => c.held.accountId), columns: ['account_id', 'balance', 'reserved'], touch: 'reserved' }),
      ]);
      const stillOpen = new Set(open.map((r) => r.id));
      const balances = new Map(rows.map((r) => [r.account_id, Number(r.balance)]));
      const charged = new Map<string, number>();
      const freed = new Map<string, number>();
      const givenBack = new Map<string, number>();
      const ledger: Record<string, unknown>[] = [];
      const writes: Promise<unknown>[] = [];
      const outcomes = batch.map(({ held: r, charge, reason }) => {
        if (!stillOpen.delete(r.id)) return false;
        const balance = balances.get(r.accountId);
        if (balance === undefined) throw new Error(`no wallet for account ${r.accountId} of reservation ${r.id}`);
        const balanceAfter = balance - (charge ?? 0);
        balances.set(r.accountId, balanceAfter);
        add(charged, r.accountId, charge ?? 0);
        add(freed, r.accountId, r.amount);
        // A release gives the key's characters back; a partial charge (a stream cut short) the characters it does not charge.
        const back = charge === null ? r.quotaChars : r.amount > 0 ? r.quotaChars - Math.ceil((r.quotaChars * charge) / r.amount) : 0;
        if (back > 0 && r.keyId) add(givenBack, r.keyId, back);
        writes.push(trx('reservations').where({ id: r.id }).update(charge === null ? { status: 'released', release_reason: reason, closed_at: closedAt } : { status: 'settled', charged: charge, closed_at: closedAt }));
        const unused = charge === null ? r.amount : r.amount - charge;
        const base = { accountId: r.accountId, balanceAfter, requestId: r.requestId, reservationId: r.id };
        // A settle's reason is the note of a partial charge (what was delivered, who cut the stream).
        if (charge !== null) ledger.push(ledgerRow({ ...base, kind: 'settle', amount: charge, description: reason }));
        if (unused > 0 || charge === null) ledger.push(ledgerRow({ ...base, kind: 'release', amount: unused, description: charge === null ? reason : reason ? `unused part of the reservation: ${reason}` : 'unused part of the reservation' }));
        return true;
      });
      for (const [accountId, amount] of freed) {
        writes.push(trx('wallets').where({ account_id: accountId }).update({ balance: trx.raw('balance - ?', [charged.get(accountId)!]), reserved: trx.raw('reserved - ?', [amount]) }));
      }
      for (const [keyId, chars] of givenBack) writes.push(this.quota.giveBack(trx, keyId, chars));
      if (ledger.length) writes.push(trx('ledger').insert(ledger));
      await Promise.all(writes);
      return outcomes;
    });
  }

  /** Releases a reservation whose owner is gone (called by the lease sweep). */
  releaseOrphan(row: OrphanReservation, reason: string): Promise<boolean> {
    return this.close(toHeld(row), null, reason);
  }

  /** Releases every reservation this process still holds (shutdown). */
  async releaseOpen(reason: string): Promise<void> {
    await Promise.all([...this.open.values()].map((r) => r.release(reason).catch((err) => this.logger.error({ err, reservationId: r.id }, 'failed to release a wallet reservation'))));
  }

  /** Creates the account's wallet row on first use; rows are never deleted, so a seen one is remembered (no query after). */
  private async ensureWallet(accountId: string): Promise<void> {
    if (this.withWallet.has(accountId)) return;
    if (!(await this.db.knex('wallets').where({ account_id: accountId }).first('account_id'))) {
      await this.requireAccount(accountId);
      await this.db.knex('wallets').insert({ account_id: accountId, balance: 0, reserved: 0, created_at: now() }).onConflict('account_id').ignore();
    }
    this.withWallet.add(accountId);
  }

  private async requireAccount(accountId: string): Promise<void> {
    if (!(await this.accounts.get(accountId))) throw new SawtError('notFound', `Account '${accountId}' not found`);
  }
}

type LedgerWrite = Omit<LedgerEntry, 'id' | 'reservationId' | 'createdAt'> & { reservationId?: string };

function ledgerRow(e: LedgerWrite): Record<string, unknown> {
  return {
    account_id: e.accountId, kind: e.kind, amount: e.amount, balance_after: e.balanceAfter,
    request_id: e.requestId, reservation_id: e.reservationId ?? null, description: e.description, created_at: now(),
  };
}

/** A reservation's row (reservations table) as closing it needs it. */
function toHeld(row: Pick<OrphanReservation, 'id' | 'account_id' | 'amount' | 'request_id' | 'key_id' | 'quota_chars'>): HeldReservation {
  return { id: row.id, accountId: row.account_id, amount: Number(row.amount), requestId: row.request_id, keyId: row.key_id ?? null, quotaChars: Number(row.quota_chars) };
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
    this.closing ??= this.wallet.close(this.held, charge, reason).then(() => undefined, (e) => {
      this.closing = null;
      throw e;
    });
    return this.closing;
  }
}
