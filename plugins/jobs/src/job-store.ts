/**
 * Jobs and their parts in the database. A part is rendered under a lease: claimed with
 * `FOR UPDATE SKIP LOCKED` on PostgreSQL (as graphile-worker and pg-boss claim jobs) or a
 * compare-and-set update on SQLite (one writer), renewed while it renders, and marked done only
 * by the lease holder; a lease that runs out (its process died) makes the part claimable again.
 */
import type { Knex } from 'knex';
import type { Database, Plan, SpeechStep, WebhookSecrets } from '@sawt/core';
import type { TextPart } from './parts.js';
import type { Chapter } from './spoken-text.js';
import type { Cue } from './captions.js';
import { newWebhookSecret } from './webhooks.js';

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
export const FINISHED: readonly JobStatus[] = ['succeeded', 'failed', 'canceled'];

/** A durable reservation's lease (billing's reserveDurable) never runs out: it is set to year 9999. */
const DURABLE_LEASE_FROM = '9999-';

export interface JobRow {
  id: string;
  account_id: string;
  plan: Plan;
  key_id: string | null;
  model_id: string;
  voice_id: string;
  output_format: string;
  speed: number;
  stability: number;
  title: string | null;
  chapters: string;
  callback_url: string | null;
  api_base: string;
  status: JobStatus;
  chars_total: number;
  chars_done: number;
  parts_total: number;
  parts_done: number;
  samples_done: number | string;
  synthesis_rate: number;
  error_status: number | null;
  error_code: number | null;
  error_message: string | null;
  reservation_id: string;
  cost_micro: number | string;
  money: 'held' | 'settled' | 'released';
  audio_key: string | null;
  audio_bytes: number | string | null;
  timeline_key: string | null;
  finisher_id: string | null;
  finisher_expires_at: string | null;
  webhook_state: 'pending' | 'delivered' | 'failed' | null;
  webhook_attempts: number;
  webhook_next_at: string | null;
  webhook_lease_expires_at: string | null;
  webhook_last_status: number | null;
  webhook_last_error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
}

export interface NewJob {
  id: string;
  accountId: string;
  plan: Plan;
  keyId: string | null;
  modelId: string;
  voiceId: string;
  outputFormat: string;
  speed: number;
  stability: number;
  title: string | null;
  chapters: Chapter[];
  callbackUrl: string | null;
  apiBase: string;
  charsTotal: number;
  synthesisRate: number;
  reservationId: string;
  costMicro: number;
}

/** A part a runner holds the lease of. */
export interface ClaimedPart {
  jobId: string;
  idx: number;
  text: string;
  textStart: number;
  chars: number;
  attempts: number;
  /** What its synthesis reads (SSML, dictionaries); null: `text` as plain text. */
  steps: SpeechStep[] | null;
}

export interface DonePart {
  idx: number;
  samples: number;
  blobKey: string;
  cues: Cue[];
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** Parts inserted per statement (SQLite binds at most 32766 values). */
const INSERT_BATCH = 500;

export class JobStore implements WebhookSecrets {
  /** When this process last gave each account a part (fairness: the least recently served goes first). */
  private readonly served = new Map<string, number>();
  private claims = 0;

  constructor(private readonly db: Database, private readonly clock: () => number = Date.now) {}

  private get knex(): Knex {
    return this.db.knex;
  }

  async create(job: NewJob, parts: TextPart[]): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await trx('jobs').insert({
        id: job.id, account_id: job.accountId, plan: job.plan, key_id: job.keyId, model_id: job.modelId, voice_id: job.voiceId, output_format: job.outputFormat,
        speed: job.speed, stability: job.stability, title: job.title, chapters: JSON.stringify(job.chapters), callback_url: job.callbackUrl, api_base: job.apiBase,
        status: 'queued', chars_total: job.charsTotal, parts_total: parts.length, synthesis_rate: job.synthesisRate, reservation_id: job.reservationId,
        cost_micro: job.costMicro, created_at: iso(this.clock()),
      });
      for (let i = 0; i < parts.length; i += INSERT_BATCH) {
        await trx('job_parts').insert(parts.slice(i, i + INSERT_BATCH).map((p, k) => ({ job_id: job.id, idx: i + k, text: p.text, text_start: p.start, chars: p.chars, steps: p.steps ? JSON.stringify(p.steps) : null, status: 'pending' })));
      }
    });
  }

  async get(id: string): Promise<JobRow | undefined> {
    return this.knex<JobRow>('jobs').where({ id }).first();
  }

  /** The account's jobs, newest first, after `cursor` (the created_at and id of the last one seen). */
  async list(accountId: string, limit: number, cursor: { createdAt: string; id: string } | null): Promise<JobRow[]> {
    const q = this.knex<JobRow>('jobs').where({ account_id: accountId });
    if (cursor) q.where((w) => w.where('created_at', '<', cursor.createdAt).orWhere((x) => x.where('created_at', cursor.createdAt).where('id', '<', cursor.id)));
    return q.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit);
  }

  /**
   * Claims the next part to render, fairly across accounts: the accounts with the fewest parts being
   * rendered (on any node) come first, then the one this process served least recently, so one
   * account's 50 jobs take turns with another's one; within an account, its oldest job. A queued
   * job starts only while its account runs fewer jobs than its plan allows (`jobLimit`; null: no limit).
   */
  async claimPart(ownerId: string, leaseMs: number, jobLimit: (plan: Plan) => number | null): Promise<ClaimedPart | null> {
    const k = this.knex;
    const now = iso(this.clock());
    const candidates = await k<JobRow>('jobs')
      .whereIn('status', ['queued', 'running'])
      .whereRaw('parts_done < parts_total')
      .orderBy('created_at')
      .limit(1000)
      .select('id', 'account_id', 'plan', 'status', 'created_at');
    if (!candidates.length) return null;
    const running = new Map<string, number>();
    for (const r of (await k('jobs').where({ status: 'running' }).groupBy('account_id').select('account_id').count({ n: '*' })) as Array<{ account_id: string; n: number | string }>) {
      running.set(r.account_id, Number(r.n));
    }
    const rendering = new Map<string, number>();
    const leased = (await k('job_parts as p').join('jobs as j', 'j.id', 'p.job_id').where('p.status', 'leased').where('p.lease_expires_at', '>=', now)
      .groupBy('j.account_id').select('j.account_id').count({ n: '*' })) as Array<{ account_id: string; n: number | string }>;
    for (const r of leased) rendering.set(r.account_id, Number(r.n));
    const order = candidates
      .map((c, i) => ({ c, i }))
      .sort((a, b) => (rendering.get(a.c.account_id) ?? 0) - (rendering.get(b.c.account_id) ?? 0)
        || (this.served.get(a.c.account_id) ?? 0) - (this.served.get(b.c.account_id) ?? 0) || a.i - b.i)
      .map((x) => x.c);
    for (const job of order) {
      if (job.status === 'queued') {
        const limit = jobLimit(job.plan);
        if (limit !== null && (running.get(job.account_id) ?? 0) >= limit) continue;
        if (!(await this.start(job.id, job.account_id, limit, now))) continue;
        running.set(job.account_id, (running.get(job.account_id) ?? 0) + 1);
      }
      const part = await this.claimPartOf(job.id, ownerId, now, iso(this.clock() + leaseMs));
      if (!part) continue;
      // A counter, not the clock: two claims within one millisecond still take turns.
      this.served.set(job.account_id, ++this.claims);
      return part;
    }
    return null;
  }

  /**
   * Starts a queued job if its account runs fewer than `limit` jobs, in one statement (so two
   * processes starting jobs of one account at once do not both pass the count on SQLite).
   */
  private async start(jobId: string, accountId: string, limit: number | null, now: string): Promise<boolean> {
    const k = this.knex;
    const q = k('jobs').where({ id: jobId, status: 'queued' });
    if (limit !== null) {
      q.whereRaw('(select count(*) from jobs r where r.account_id = ? and r.status = ?) < ?', [accountId, 'running', limit]);
    }
    return (await q.update({ status: 'running', started_at: now })) === 1;
  }

  private async claimPartOf(jobId: string, ownerId: string, now: string, expires: string): Promise<ClaimedPart | null> {
    const k = this.knex;
    const claimable = (q: Knex.QueryBuilder) => q.where({ job_id: jobId }).where((w) => w.where('status', 'pending').orWhere((x) => x.where('status', 'leased').where('lease_expires_at', '<', now)));
    const lease = { status: 'leased', owner_id: ownerId, lease_expires_at: expires, attempts: k.raw('attempts + 1') };
    const columns = ['job_id', 'idx', 'text', 'text_start', 'chars', 'attempts', 'steps'];
    let row: Record<string, unknown> | undefined;
    if (this.db.dialect === 'pg') {
      // Two nodes asking at once skip each other's locked rows instead of waiting for them.
      const next = claimable(k('job_parts')).orderBy('idx').limit(1).forUpdate().skipLocked().select('idx');
      [row] = await k('job_parts').where({ job_id: jobId }).where('idx', '=', next).update(lease, columns);
    } else {
      for (;;) {
        const next = await claimable(k('job_parts')).orderBy('idx').first('idx');
        if (!next) return null;
        // Compare and set: the row is ours only if it is still claimable when the write lands.
        const n = await claimable(k('job_parts')).where({ idx: next.idx }).update(lease);
        if (n === 1) {
          row = await k('job_parts').where({ job_id: jobId, idx: next.idx }).first(columns);
          break;
        }
      }
    }
    if (!row) return null;
    return {
      jobId: String(row.job_id), idx: Number(row.idx), text: String(row.text), textStart: Number(row.text_start), chars: Number(row.chars), attempts: Number(row.attempts),
      steps: row.steps ? (JSON.parse(String(row.steps)) as SpeechStep[]) : null,
    };
  }

  /** Pushes the part's lease forward; false when it is no longer this owner's, or the job stopped. */
  async renewPart(part: ClaimedPart, ownerId: string, leaseMs: number): Promise<boolean> {
    const n = await this.knex('job_parts')
      .where({ job_id: part.jobId, idx: part.idx, owner_id: ownerId, status: 'leased' })
      .whereExists(this.knex('jobs').where({ id: part.jobId, status: 'running' }).select('id'))
      .update({ lease_expires_at: iso(this.clock() + leaseMs) });
    return n === 1;
  }

  /**
   * Marks the part done with its audio, if this owner still holds it and the job still runs, and
   * counts it into the job's progress in the same transaction. Resolves whether it counted and
   * whether it was the job's last part.
   */
  async completePart(part: ClaimedPart, ownerId: string, done: DonePart): Promise<{ counted: boolean; last: boolean }> {
    return this.knex.transaction(async (trx) => {
      const n = await trx('job_parts')
        .where({ job_id: part.jobId, idx: part.idx, owner_id: ownerId, status: 'leased' })
        .whereExists(trx('jobs').where({ id: part.jobId, status: 'running' }).select('id'))
        .update({ status: 'done', lease_expires_at: null, samples: done.samples, blob_key: done.blobKey, cues: JSON.stringify(done.cues) });
      if (n !== 1) return { counted: false, last: false };
      await trx('jobs').where({ id: part.jobId }).update({
        parts_done: trx.raw('parts_done + 1'), chars_done: trx.raw('chars_done + ?', [part.chars]), samples_done: trx.raw('samples_done + ?', [done.samples]),
      });
      const job = await trx<JobRow>('jobs').where({ id: part.jobId }).first('parts_done', 'parts_total');
      return { counted: true, last: !!job && job.parts_done >= job.parts_total };
    });
  }

  /** Gives the part back (it failed here and may be tried again). */
  async releasePart(part: ClaimedPart, ownerId: string): Promise<void> {
    await this.knex('job_parts').where({ job_id: part.jobId, idx: part.idx, owner_id: ownerId, status: 'leased' }).update({ status: 'pending', owner_id: null, lease_expires_at: null });
  }

  /** The finished parts in order (blob keys, samples, cues). */
  async doneParts(jobId: string): Promise<DonePart[]> {
    const rows = await this.knex('job_parts').where({ job_id: jobId, status: 'done' }).orderBy('idx').select('idx', 'samples', 'blob_key', 'cues');
    return rows.map((r: Record<string, unknown>) => ({ idx: Number(r.idx), samples: Number(r.samples), blobKey: String(r.blob_key), cues: JSON.parse(String(r.cues)) as Cue[] }));
  }

  /** Blob keys of every part that has audio (for removal). */
  async partKeys(jobId: string): Promise<string[]> {
    const rows = await this.knex('job_parts').where({ job_id: jobId }).whereNotNull('blob_key').select('blob_key');
    return rows.map((r: { blob_key: string }) => r.blob_key);
  }

  /** Running jobs whose parts are all done and whose last step nobody holds (or its holder's lease ran out). */
  async finishable(): Promise<string[]> {
    const now = iso(this.clock());
    const rows = await this.knex('jobs').where({ status: 'running' }).whereRaw('parts_done >= parts_total')
      .where((w) => w.whereNull('finisher_expires_at').orWhere('finisher_expires_at', '<', now)).orderBy('created_at').limit(10).select('id');
    return rows.map((r: { id: string }) => r.id);
  }

  /** Takes the last step of a job (compare and set on its finisher lease). */
  async claimFinish(jobId: string, ownerId: string, leaseMs: number): Promise<boolean> {
    const now = iso(this.clock());
    const n = await this.knex('jobs').where({ id: jobId, status: 'running' }).whereRaw('parts_done >= parts_total')
      .where((w) => w.whereNull('finisher_expires_at').orWhere('finisher_expires_at', '<', now).orWhere('finisher_id', ownerId))
      .update({ finisher_id: ownerId, finisher_expires_at: iso(this.clock() + leaseMs) });
    return n === 1;
  }

  async renewFinish(jobId: string, ownerId: string, leaseMs: number): Promise<boolean> {
    const n = await this.knex('jobs').where({ id: jobId, status: 'running', finisher_id: ownerId }).update({ finisher_expires_at: iso(this.clock() + leaseMs) });
    return n === 1;
  }

  /** Ends a job (compare and set from the statuses it may leave); false when it had already left them. */
  async end(jobId: string, from: JobStatus[], to: JobStatus, fields: Partial<JobRow>, retentionMs: number, finisherId?: string): Promise<boolean> {
    const now = this.clock();
    const q = this.knex('jobs').where({ id: jobId }).whereIn('status', from);
    if (finisherId) q.where({ finisher_id: finisherId });
    const n = await q.update({ ...fields, status: to, finished_at: iso(now), expires_at: iso(now + retentionMs), webhook_state: this.knex.raw("CASE WHEN callback_url IS NULL THEN NULL ELSE 'pending' END"), webhook_next_at: iso(now) });
    return n === 1;
  }

  async setMoney(jobId: string, money: 'settled' | 'released'): Promise<void> {
    await this.knex('jobs').where({ id: jobId, money: 'held' }).update({ money });
  }

  /** Finished jobs whose reservation was not closed yet (a crash between the two writes). */
  async moneyToClose(): Promise<JobRow[]> {
    return this.knex<JobRow>('jobs').whereIn('status', FINISHED as JobStatus[]).where({ money: 'held' }).limit(100);
  }

  /**
   * Open durable reservations made before `before` (ms) that no job holds: submit reserves the price
   * (Wallet.reserveDurable) before it stores the job, and a crash between the two leaves money held
   * that no job will ever close. Durable reservations are billing's rows with no lease owner and a
   * lease that never runs out; this is the jobs plugin's one read of billing's table (the release
   * itself goes through the Wallet).
   */
  async orphanReservations(before: number): Promise<string[]> {
    const rows = await this.knex('reservations as r').leftJoin('jobs as j', 'j.reservation_id', 'r.id')
      .where('r.status', 'open').whereNull('r.owner_id').where('r.lease_expires_at', '>=', DURABLE_LEASE_FROM).where('r.created_at', '<', iso(before))
      .whereNull('j.id').limit(100).select('r.id');
    return rows.map((r: { id: string }) => r.id);
  }

  async remove(jobId: string): Promise<void> {
    await this.knex('job_parts').where({ job_id: jobId }).delete();
    await this.knex('jobs').where({ id: jobId }).delete();
  }

  async expired(): Promise<JobRow[]> {
    return this.knex<JobRow>('jobs').where('expires_at', '<', iso(this.clock())).limit(100);
  }

  /** Webhook deliveries due now, each claimed for `leaseMs` (compare and set), so one process sends it. */
  async claimWebhooks(leaseMs: number): Promise<JobRow[]> {
    const now = iso(this.clock());
    const due = await this.knex<JobRow>('jobs').where({ webhook_state: 'pending' }).where('webhook_next_at', '<=', now)
      .where((w) => w.whereNull('webhook_lease_expires_at').orWhere('webhook_lease_expires_at', '<', now)).orderBy('webhook_next_at').limit(10);
    const claimed: JobRow[] = [];
    for (const job of due) {
      const n = await this.knex('jobs').where({ id: job.id, webhook_state: 'pending', webhook_attempts: job.webhook_attempts })
        .where((w) => w.whereNull('webhook_lease_expires_at').orWhere('webhook_lease_expires_at', '<', now))
        .update({ webhook_lease_expires_at: iso(this.clock() + leaseMs) });
      if (n === 1) claimed.push(job);
    }
    return claimed;
  }

  async recordWebhook(jobId: string, attempt: { state: 'pending' | 'delivered' | 'failed'; status: number | null; error: string | null; nextAt: number | null }): Promise<void> {
    await this.knex('jobs').where({ id: jobId }).update({
      webhook_state: attempt.state, webhook_attempts: this.knex.raw('webhook_attempts + 1'), webhook_last_status: attempt.status, webhook_last_error: attempt.error,
      webhook_next_at: attempt.nextAt === null ? null : iso(attempt.nextAt), webhook_lease_expires_at: null,
    });
  }

  async webhookSecret(accountId: string): Promise<string | null> {
    const row = await this.knex('webhook_secrets').where({ account_id: accountId }).first('secret');
    return row ? String(row.secret) : null;
  }

  /** Makes or rotates the account's webhook secret (POST /webhooks/secret, `sawt accounts webhook-secret`). */
  async rotate(accountId: string): Promise<string> {
    const secret = newWebhookSecret();
    await this.knex('webhook_secrets').insert({ account_id: accountId, secret, created_at: iso(this.clock()) }).onConflict('account_id').merge(['secret', 'created_at']);
    return secret;
  }
}
