import { PLAN_CONCURRENCY, type Admission, type AdmissionControl, type AuthContext, type CharacterQuota, type ConcurrencyLimiter, type ConcurrencySlot, type Logger, type Wallet, type WalletReservation } from '@sawt/core';

type QuotaHold = { release(): Promise<void> };

/**
 * Takes, in this order, a concurrency slot (in memory, cheapest: a flood of
 * over-limit requests never reaches the database), the key's characters, then the
 * money. So 42901 wins over 42903 and 40201 when several apply. A failing step
 * gives back what the earlier ones took.
 */
export class SawtAdmissionControl implements AdmissionControl {
  private readonly open = new Set<OpenAdmission>();

  constructor(
    private readonly quota: CharacterQuota,
    private readonly concurrency: ConcurrencyLimiter,
    private readonly wallet: Wallet,
    private readonly logger: Logger,
  ) {}

  async admit(input: { auth: AuthContext; requestId: string; chars: number; costMicro: number; description: string; concurrency?: boolean }): Promise<Admission> {
    const { auth, requestId, chars, costMicro, description } = input;
    const plan = auth.account.plan;
    const limit = Object.hasOwn(PLAN_CONCURRENCY, plan) ? PLAN_CONCURRENCY[plan] : PLAN_CONCURRENCY.free;
    const slot = input.concurrency === false ? null : await this.concurrency.acquire(auth.account.id, limit);
    let quotaHold: QuotaHold | null = null;
    try {
      quotaHold = await this.quota.reserve(auth.key.id, chars);
      const reservation = await this.wallet.reserve(auth.account.id, costMicro, { requestId, description });
      const admission = new OpenAdmission(requestId, costMicro, reservation, quotaHold, slot, this.logger, (a) => this.open.delete(a));
      this.open.add(admission);
      return admission;
    } catch (e) {
      await quotaHold?.release().catch((err) => this.logger.error({ err, requestId }, 'failed to give back quota characters'));
      slot?.release();
      throw e;
    }
  }

  async releaseAll(reason: string): Promise<void> {
    await Promise.all([...this.open].map((a) => a.release(reason).catch((err) => this.logger.error({ err, requestId: a.requestId }, 'failed to release an admission'))));
  }
}

class OpenAdmission implements Admission {
  private closing: Promise<void> | null = null;

  constructor(
    readonly requestId: string,
    readonly costMicro: number,
    private readonly reservation: WalletReservation,
    private readonly quotaHold: QuotaHold,
    private readonly slot: ConcurrencySlot | null,
    private readonly logger: Logger,
    private readonly onClosed: (a: OpenAdmission) => void,
  ) {}

  /** The characters stay consumed: the work was done. */
  settle(costMicro?: number): Promise<void> {
    this.closing ??= this.finish(() => this.reservation.settle(costMicro));
    return this.closing;
  }

  release(reason: string): Promise<void> {
    this.closing ??= this.finish(async () => {
      try {
        await this.reservation.release(reason);
      } finally {
        await this.quotaHold.release().catch((err) => this.logger.error({ err, requestId: this.requestId }, 'failed to give back quota characters'));
      }
    });
    return this.closing;
  }

  private async finish(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } finally {
      // The slot is freed even when the database fails; a stuck slot would block the account.
      this.slot?.release();
      this.onClosed(this);
    }
  }
}
