import { eachInTurns, systemClock, type QuotaHold } from '@sawt/core';

/** One reservation asked for. */
export interface ReserveRequest { id: string; accountId: string; amount: number; requestId: string; description: string | null; quota: QuotaHold | null }

/** What closing a reservation needs to know about it; keyId: the key whose quotaChars it holds (null: none). */
export interface HeldReservation { id: string; accountId: string; amount: number; requestId: string; keyId: string | null; quotaChars: number }

/** One close asked for: settle charging `charge`, or release (charge null) for `reason`. */
export interface CloseRequest { held: HeldReservation; charge: number | null; reason: string | null }

interface Waiting<Req, Out> { request: Req; resolve: (out: Out) => void; reject: (e: unknown) => void }

export interface WriteQueueOptions {
  /** Closes wait this long before their transaction (ms): more of them share it, and a reservation asked for meanwhile goes first. */
  closeDelayMs: number;
  maxBatch: number;
}

/**
 * The wallet's writes in this process, one transaction at a time: the requests waiting in a queue
 * (reservations; closes, i.e. settles and releases) when its turn comes share one transaction, which
 * returns each one's outcome (an error refusing a reservation; whether a close closed); a failing
 * transaction fails its whole batch.
 *
 * Reservations go first: one waiting behind a settle was most of a sequential client's first-byte
 * latency (the previous request's settle starts just before the next request asks). Closes are due
 * after closeDelayMs, and then wait for at most one batch of reservations. The first reservation waits
 * for the end of the event loop's turn, so requests asked for in the same turn share its transaction.
 */
export class WalletWriteQueue {
  #reservations: Waiting<ReserveRequest, void>[] = [];
  #closes: Waiting<CloseRequest, boolean>[] = [];
  /** Closes asked for and not yet written (closesWritten). */
  #pendingCloses = new Set<Promise<boolean>>();
  #writing = false;
  #scheduled = false;
  #cancelCloseTimer: (() => void) | null = null;
  #closesDue = false;
  /** The last transaction wrote reservations (a due close batch goes next). */
  #lastWroteReservations = false;

  constructor(
    private readonly writeReservations: (batch: ReserveRequest[]) => Promise<Array<Error | null>>,
    private readonly writeCloses: (batch: CloseRequest[]) => Promise<boolean[]>,
    private readonly options: WriteQueueOptions = { closeDelayMs: 5, maxBatch: 64 },
  ) {}

  reserve(request: ReserveRequest): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#reservations.push({ request, resolve, reject });
      this.#schedule();
    });
  }

  close(request: CloseRequest): Promise<boolean> {
    const closed = new Promise<boolean>((resolve, reject) => {
      this.#closes.push({ request, resolve, reject });
      this.#cancelCloseTimer ??= systemClock.after(this.options.closeDelayMs, () => this.#closesNow());
    });
    this.#pendingCloses.add(closed);
    const done = () => void this.#pendingCloses.delete(closed);
    closed.then(done, done);
    return closed;
  }

  /**
   * Resolves once every close asked for so far is written (failed ones included), making them due
   * at once: what the wallet reads next (balance, ledger) includes them.
   */
  async closesWritten(): Promise<void> {
    if (this.#pendingCloses.size === 0) return;
    const pending = [...this.#pendingCloses];
    if (this.#closes.length) this.#closesNow();
    await Promise.allSettled(pending);
  }

  /** The waiting closes are due: written next (after at most one batch of reservations). */
  #closesNow(): void {
    this.#cancelCloseTimer?.();
    this.#cancelCloseTimer = null;
    this.#closesDue = true;
    this.#next();
  }

  #schedule(): void {
    if (this.#writing || this.#scheduled) return;
    this.#scheduled = true;
    systemClock.nextTurn(() => {
      this.#scheduled = false;
      this.#next();
    });
  }

  #next(): void {
    if (this.#writing) return;
    const closesFirst = this.#closesDue && this.#closes.length > 0 && (this.#lastWroteReservations || this.#reservations.length === 0);
    if (!closesFirst && this.#reservations.length > 0) {
      if (this.#scheduled) return; // the turn's reservations are still being asked for
      const batch = this.#reservations.splice(0, this.options.maxBatch);
      this.#lastWroteReservations = true;
      this.#run(batch, () => this.writeReservations(batch.map((w) => w.request)), (w, out) => (out ? w.reject(out) : w.resolve()));
    } else if (this.#closesDue && this.#closes.length > 0) {
      const batch = this.#closes.splice(0, this.options.maxBatch);
      if (this.#closes.length === 0) this.#closesDue = false;
      this.#lastWroteReservations = false;
      this.#run(batch, () => this.writeCloses(batch.map((w) => w.request)), (w, out) => w.resolve(out));
    }
  }

  #run<Req, Res, Out>(batch: Waiting<Req, Res>[], write: () => Promise<Out[]>, settle: (w: Waiting<Req, Res>, out: Out) => void): void {
    this.#writing = true;
    write()
      .then(
        // One admitted request per turn: each goes on to start its audio (core's eachInTurns).
        (outcomes) => eachInTurns(batch, (w, i) => settle(w, outcomes[i]!)),
        (error: unknown) => eachInTurns(batch, (w) => w.reject(error)),
      )
      .finally(() => {
        this.#writing = false;
        this.#next();
      });
  }
}
