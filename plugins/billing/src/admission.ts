import type { Admission, AdmissionControl, AuthContext, ConcurrencyLimiter, ConcurrencySlot, Logger, Plan, Wallet, WalletReservation } from '@sawt/core';

/** Concurrent synthesis requests per plan; null = unlimited. */
export const PLAN_CONCURRENCY: Record<Plan, number | null> = {
  free: 1, basic: 2, starter: 5, growth: 10, scale: 20, enterprise: null,
};

/**
 * Takes a concurrency slot first (cheapest: a flood of over-limit requests never reaches the
 * database), then the key's characters and the money in one wallet reservation, so 42901 wins over
 * 42903 and 40201. A failing step gives back what the earlier ones took.
 */
export class SawtAdmissionControl implements AdmissionControl {
  private readonly open = new Set<OpenAdmission>();

  constructor(
    private readonly concurrency: ConcurrencyLimiter,
    private readonly wallet: Wallet,
    private readonly logger: Logger,
  ) {}

  async admit(input: { auth: AuthContext; requestId: string; chars: number; costMicro: number; description: string; concurrency?: boolean }): Promise<Admission> {
    const { auth, requestId, chars, costMicro, description } = input;
    const slot = input.concurrency === false ? null : await this.holdSlot(auth);
    try {
      const reservation = await this.wallet.reserve(auth.account.id, costMicro, { requestId, description, quota: { keyId: auth.key.id, chars } });
      const admission = new OpenAdmission(requestId, costMicro, reservation, slot, (a) => this.open.delete(a));
      this.open.add(admission);
      return admission;
    } catch (e) {
      await slot?.release();
      throw e;
    }
  }

  /** The plan's concurrency slot alone (uploads take it before decoding, then the money with admit({ concurrency: false })). */
  holdSlot(auth: AuthContext): Promise<ConcurrencySlot> {
    const plan = auth.account.plan;
    return this.concurrency.acquire(auth.account.id, Object.hasOwn(PLAN_CONCURRENCY, plan) ? PLAN_CONCURRENCY[plan] : PLAN_CONCURRENCY.free);
  }

  async releaseAll(reason: string): Promise<void> {
    await Promise.all([...this.open].map((a) => a.release(reason).catch((err) => this.logger.error({ err, requestId: a.requestId }, 'failed to release an admission'))));
  }
}

class OpenAdmission implements Admission {
  private closing: Promise<void> | null = null;
  private slotFreed: Promise<void> | null = null;

  constructor(
    readonly requestId: string,
    readonly costMicro: number,
    private readonly reservation: WalletReservation,
    private readonly slot: ConcurrencySlot | null,
    private readonly onClosed: (a: OpenAdmission) => void,
  ) {}

  /** The characters stay consumed (a partial charge keeps only the characters it charges: the wallet gives the rest back). */
  settle(costMicro?: number, note?: string): Promise<void> {
    this.closing ??= this.finish(() => this.reservation.settle(costMicro, note));
    return this.closing;
  }

  /** Gives back the money and the key's characters (one transaction in the wallet). */
  release(reason: string): Promise<void> {
    this.closing ??= this.finish(() => this.reservation.release(reason));
    return this.closing;
  }

  /** The slot goes back once the limiter acknowledged it (the primary's or Redis's answer); the money is settled later. */
  freeSlot(): Promise<void> {
    this.slotFreed ??= this.slot ? this.slot.release() : Promise.resolve();
    return this.slotFreed;
  }

  private async finish(work: () => Promise<void>): Promise<void> {
    // The slot is freed first, whatever the database does: the work is over, and a stuck slot would block the account.
    const freed = this.freeSlot();
    try {
      await work();
    } finally {
      await freed;
      this.onClosed(this);
    }
  }
}
