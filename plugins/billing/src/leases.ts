import { randomUUID } from 'node:crypto';
import { isLocalProcessGone, systemClock, type Clock, type Database, type Logger, type ProcessOwner } from '@sawt/core';

export interface LeaseSettings {
  /** How long a reservation stays held after its owner's last heartbeat. */
  ttlMs: number;
  /** How often a live process renews its own leases. */
  heartbeatMs: number;
  /** How often a process looks for reservations whose owner is gone. */
  sweepMs: number;
}

/** An open reservation whose owner is gone, as the sweep hands it to the wallet. */
export interface OrphanReservation {
  id: string; account_id: string; amount: number | string; request_id: string; key_id: string | null; quota_chars: number | string;
  owner_id: string | null; lease_expires_at: string | null;
}

interface OwnerRow { id: string; node_id: string; pid: number; boot_id: string | null; start_ticks: number | string | null; expires_at: string }

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Leases on wallet reservations, so that money and quota held by a process that died (kill -9, a
 * lost node) come back. Each process registers in lease_owners (node, pid, boot id, start time) and
 * stamps its reservations with its id and a lease expiry that its heartbeat pushes forward. Every
 * process sweeps at start and periodically: it releases other owners' reservations whose lease
 * expired, and at once those of owners on its node that are certainly gone (same boot, pid dead or
 * reused), so a restart after kill -9 gives everything back immediately. Uncertain cases (another
 * node, another boot) wait for the lease to run out.
 */
export class ReservationLeases {
  readonly ownerId = randomUUID();
  private timers: Array<() => void> = [];
  private sweeping: Promise<number> | null = null;
  private release: ((row: OrphanReservation, reason: string) => Promise<boolean>) | null = null;

  constructor(
    private readonly db: Database,
    private readonly self: ProcessOwner,
    readonly settings: LeaseSettings,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The lease expiry to stamp on a reservation taken now. */
  expiry(): string {
    return iso(this.clock.now() + this.settings.ttlMs);
  }

  /** Registers this process, sweeps once, then heartbeats and sweeps on timers. */
  async start(release: (row: OrphanReservation, reason: string) => Promise<boolean>): Promise<void> {
    this.release = release;
    await this.heartbeat();
    await this.sweep();
    const every = (ms: number, fn: () => Promise<unknown>, what: string) => {
      this.timers.push(this.clock.after(ms, () => fn().catch((err) => this.logger.error({ err }, `reservation lease ${what} failed`)), { every: true, unref: true }));
    };
    every(this.settings.heartbeatMs, () => this.heartbeat(), 'heartbeat');
    every(this.settings.sweepMs, () => this.sweep(), 'sweep');
  }

  /** Stops the timers and unregisters this process once none of its reservations is open. */
  async stop(): Promise<void> {
    for (const cancel of this.timers) cancel();
    this.timers = [];
    await this.sweeping?.catch(() => {});
    const k = this.db.knex;
    await k('lease_owners').where({ id: this.ownerId }).whereNotExists(k('reservations').where({ owner_id: this.ownerId, status: 'open' }).select('id')).delete();
  }

  /** Renews this process's registration and the leases of every reservation it holds. */
  async heartbeat(): Promise<void> {
    const now = this.clock.now();
    const expiresAt = iso(now + this.settings.ttlMs);
    const k = this.db.knex;
    // Re-inserted when a sweeper removed it while this process was paused (SIGSTOP).
    const { nodeId, pid, bootId, startTicks } = this.self;
    await k('lease_owners')
      .insert({ id: this.ownerId, node_id: nodeId, pid, boot_id: bootId, start_ticks: startTicks, started_at: iso(now), heartbeat_at: iso(now), expires_at: expiresAt })
      .onConflict('id').merge(['heartbeat_at', 'expires_at']);
    await k('reservations').where({ owner_id: this.ownerId, status: 'open' }).update({ lease_expires_at: expiresAt });
  }

  /** Releases the open reservations of owners that are gone; resolves with how many. One sweep at a time. */
  sweep(): Promise<number> {
    return (this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = null)));
  }

  private async sweepOnce(): Promise<number> {
    const k = this.db.knex;
    const nowMs = this.clock.now();
    const now = iso(nowMs);
    const sameNode = (await k<OwnerRow>('lease_owners').where({ node_id: this.self.nodeId }).whereNot({ id: this.ownerId })) as OwnerRow[];
    const isGone = (o: OwnerRow) => isLocalProcessGone({ nodeId: o.node_id, pid: Number(o.pid), bootId: o.boot_id, startTicks: o.start_ticks === null ? null : Number(o.start_ticks) }, this.self);
    const gone = new Map(sameNode.filter(isGone).map((o) => [o.id, o]));
    const orphans = (await k('reservations')
      .where({ status: 'open' })
      .where((q) => q.whereNull('owner_id').orWhereNot('owner_id', this.ownerId))
      .where((q) => q.where('lease_expires_at', '<', now).orWhereNull('lease_expires_at').orWhereIn('owner_id', [...gone.keys()]))
      .select('id', 'account_id', 'amount', 'request_id', 'key_id', 'quota_chars', 'owner_id', 'lease_expires_at')) as OrphanReservation[];

    let released = 0;
    const failedOwners = new Set<string>();
    for (const row of orphans) {
      const owner = row.owner_id ? gone.get(row.owner_id) : undefined;
      const reason = owner ? `owner process ${owner.pid} on node ${owner.node_id} is gone` : `lease expired at ${row.lease_expires_at ?? 'an unknown time'}: its owner stopped renewing it`;
      try {
        if (await this.release!(row, reason)) released++;
      } catch (err) {
        if (row.owner_id) failedOwners.add(row.owner_id);
        this.logger.error({ err, reservationId: row.id }, 'could not release an orphaned reservation');
      }
    }
    const goneIds = [...gone.keys()].filter((id) => !failedOwners.has(id));
    if (goneIds.length) await k('lease_owners').whereIn('id', goneIds).delete();
    // Registrations that stopped heart-beating and hold nothing any more.
    await k('lease_owners')
      .where('expires_at', '<', iso(nowMs - this.settings.ttlMs))
      .whereNotExists(k('reservations').whereRaw('reservations.owner_id = lease_owners.id').where('status', 'open').select('id'))
      .delete();
    if (released) this.logger.warn({ released, goneOwners: [...gone.values()].map((o) => `${o.node_id}/${o.pid}`) }, 'released wallet reservations whose owner is gone');
    return released;
  }
}
