/**
 * Job runners: each claims a part (fairly across accounts, within the plans' job limits),
 * renders it under a renewed lease, stores its PCM and cues, and counts it; whoever counts the
 * last part joins them into the job's audio. A sweep finishes what a crash left half done
 * (a last step whose holder died, a reservation not yet closed, a reservation whose job was never
 * stored), removes expired jobs and sends
 * webhooks. Everything a runner holds is a lease in the database, so any process on any node
 * takes over a dead one's work from its last finished part.
 */
import { randomUUID } from 'node:crypto';
import {
  firstAudioWaits, isSawtError, outputFormat, turnBudget,
  type BlobStore, type Logger, type Plan, type SpeechStream, type SpeechSynthesizer, type Wallet, type WorkDir,
} from '@sawt/core';
import { assemble } from './assemble.js';
import { PartCues } from './captions.js';
import { FINISHED, JobStore, type ClaimedPart, type JobRow, type JobStatus } from './job-store.js';
import type { Chapter } from './spoken-text.js';
import { deliver, nextAttemptAt, type DeliverySettings } from './webhooks.js';

export interface RunnerSettings {
  runners: number;
  leaseMs: number;
  pollMs: number;
  sweepMs: number;
  retentionMs: number;
  maxAttempts: number;
  /** A durable reservation older than this with no job (a crash between reserving and storing the job) is released. */
  orphanGraceMs: number;
  /** Parts as background work in the engine (nothing urgent in its native pools). */
  background: boolean;
  jobLimit: (plan: Plan) => number | null;
  webhook: DeliverySettings & { retryBaseMs: number; retryWindowMs: number };
}

export interface RunnerDeps {
  store: JobStore;
  synthesizer: SpeechSynthesizer;
  blobs: BlobStore;
  wallet: Wallet;
  workDir: WorkDir;
  logger: Logger;
}

/** The public shape of a job's outcome in its webhook. */
export function webhookBody(job: JobRow): string {
  return JSON.stringify({
    job_id: job.id,
    status: job.status,
    audio_url: job.status === 'succeeded' ? `${job.api_base}/api/v1/jobs/${job.id}/audio` : null,
    title: job.title,
    model_id: job.model_id,
    voice_id: job.voice_id,
    output_format: job.output_format,
    characters: job.chars_total,
    characters_done: job.chars_done,
    audio_seconds: Math.round((Number(job.samples_done) / job.synthesis_rate) * 1000) / 1000,
    error: job.error_code === null ? null : { status: job.error_status, errorCode: job.error_code, errorMessage: job.error_message },
    created_at: job.created_at,
    finished_at: job.finished_at,
  });
}

/** A part being rendered in this process; `halt` ends its synthesis, and the part is given back, not failed. */
interface RenderingSlot {
  part: ClaimedPart;
  stream: SpeechStream | null;
  halt: () => void;
}

export class JobRunner {
  readonly ownerId = randomUUID();
  private stopped = false;
  private loops: Promise<void>[] = [];
  private sweeper: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;
  private wakers: Array<() => void> = [];
  /** The parts this process renders now, by `jobId/idx`: halted at stop (their leases given back), at a lost lease, or when their job is canceled here. */
  private readonly rendering = new Map<string, RenderingSlot>();

  constructor(private readonly deps: RunnerDeps, private readonly settings: RunnerSettings) {}

  start(): void {
    for (let i = 0; i < this.settings.runners; i++) this.loops.push(this.loop());
    this.sweeper = setInterval(() => void this.sweep(), this.settings.sweepMs);
    this.sweeper.unref();
    void this.sweep();
  }

  /** Stops claiming, cuts the parts being rendered and gives their leases back (another process resumes them). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    this.wake();
    for (const slot of this.rendering.values()) slot.halt();
    await Promise.allSettled(this.loops);
    await this.sweeping?.catch(() => {});
  }

  /** A job was submitted: idle runners look now. */
  wake(): void {
    for (const w of this.wakers.splice(0)) w();
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.settings.pollMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakers.push(done);
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let part: ClaimedPart | null = null;
      try {
        part = await this.deps.store.claimPart(this.ownerId, this.settings.leaseMs, this.settings.jobLimit);
        if (part) await this.render(part);
      } catch (err) {
        this.deps.logger.error({ err, jobId: part?.jobId, part: part?.idx }, 'job runner step failed');
      }
      if (!part && !this.stopped) await this.idle();
    }
  }

  private async render(part: ClaimedPart): Promise<void> {
    const { store, blobs, logger } = this.deps;
    const key = `${part.jobId}/${part.idx}`;
    let leaseLost = false;
    const slot: RenderingSlot = {
      part, stream: null, halt: () => {
        leaseLost = true;
        slot.stream?.destroy();
      },
    };
    this.rendering.set(key, slot);
    // Read once the slot is in place: a cancel here either finds the slot (and halts it) or was
    // written before this read (the part was claimed while its job was being canceled).
    const job = await store.get(part.jobId);
    if (!job || job.status !== 'running') {
      this.rendering.delete(key);
      await store.releasePart(part, this.ownerId).catch(() => {});
      return;
    }
    const renew = setInterval(() => {
      void store.renewPart(part, this.ownerId, this.settings.leaseMs).then((held) => {
        if (!held) slot.halt();
      }, (err) => logger.warn({ err, jobId: part.jobId }, 'could not renew a job part lease'));
    }, Math.max(100, Math.floor(this.settings.leaseMs / 3)));
    try {
      const stream = await this.deps.synthesizer.synthesize({
        modelId: job.model_id, voiceId: job.voice_id, accountId: job.account_id, text: part.text, speed: job.speed, stability: job.stability,
        sampleRate: job.synthesis_rate, requestId: `job-${job.id}-${part.idx}`, ...(part.steps && { steps: part.steps }),
        // Nobody waits to hear a part: with `background`, none of its work is urgent in the engine's pools, so live requests' first audio goes first.
        background: this.settings.background,
      });
      slot.stream = stream;
      if (this.stopped || leaseLost) stream.destroy();
      const cues = new PartCues(part.text, part.textStart, job.synthesis_rate);
      const pcm: Buffer[] = [];
      let samples = 0;
      for await (const chunk of stream) {
        // Live work first: a client waiting for its first audio, and the turn's budget, go before a job's next chunk.
        const later = firstAudioWaits.yieldToWaiting() ?? turnBudget.spend();
        if (later) await later;
        pcm.push(chunk.pcm);
        samples += chunk.info.samples;
        cues.add(chunk.info);
      }
      if (this.stopped || leaseLost) throw new Error('stopped');
      const blobKey = `jobs/${job.id}/part-${part.idx}-${part.attempts}.pcm`;
      await blobs.put(blobKey, Buffer.concat(pcm));
      const { counted, last } = await store.completePart(part, this.ownerId, { idx: part.idx, samples, blobKey, cues: cues.finish() });
      if (!counted) await blobs.delete(blobKey).catch(() => {});
      if (last) await this.finish(job.id);
    } catch (err) {
      if (this.stopped || leaseLost) {
        await store.releasePart(part, this.ownerId).catch(() => {});
        return;
      }
      // A refusal of the request itself (the voice was deleted, …) will not change on a retry.
      const final = (isSawtError(err) && err.status < 500) || part.attempts >= this.settings.maxAttempts;
      logger.warn({ err, jobId: job.id, part: part.idx, attempt: part.attempts, final }, 'a job part failed to render');
      if (final) await this.fail(job.id, err);
      else await store.releasePart(part, this.ownerId);
    } finally {
      clearInterval(renew);
      this.rendering.delete(key);
    }
  }

  /** The last step: joins the parts into the audio (one process, under the finisher lease), then charges. */
  async finish(jobId: string): Promise<void> {
    const { store, blobs, logger } = this.deps;
    if (!(await store.claimFinish(jobId, this.ownerId, this.settings.leaseMs))) return;
    const job = await store.get(jobId);
    if (!job || job.status !== 'running') return;
    let audio;
    try {
      audio = await assemble({
        jobId, parts: await store.doneParts(jobId), format: outputFormat(job.output_format), synthesisRate: job.synthesis_rate,
        chapters: JSON.parse(job.chapters) as Chapter[], blobs, workDir: this.deps.workDir,
        onProgress: async () => {
          if (!(await store.renewFinish(jobId, this.ownerId, this.settings.leaseMs))) throw new Error('the job stopped or another process took its last step');
        },
      });
    } catch (err) {
      if (this.stopped) return;
      logger.error({ err, jobId }, 'joining a job\'s parts failed');
      await this.fail(jobId, err);
      return;
    }
    const ended = await store.end(jobId, ['running'], 'succeeded', { audio_key: audio.audioKey, audio_bytes: audio.audioBytes, timeline_key: audio.timelineKey }, this.settings.retentionMs, this.ownerId);
    if (!ended) {
      await Promise.all([blobs.delete(audio.audioKey), blobs.delete(audio.timelineKey)].map((p) => p.catch(() => {})));
      return;
    }
    await this.closeMoney((await store.get(jobId))!);
    await this.removeParts(jobId);
    this.ended();
  }

  /** Fails a queued or running job: its reservation released in full, its parts removed. */
  async fail(jobId: string, err: unknown): Promise<void> {
    const e = isSawtError(err) ? err : null;
    const fields = { error_status: e?.status ?? 500, error_code: e?.code ?? 50001, error_message: e?.message ?? 'The job failed inside the service' };
    if (await this.deps.store.end(jobId, ['queued', 'running'], 'failed', fields, this.settings.retentionMs)) {
      await this.closeMoney((await this.deps.store.get(jobId))!);
      await this.removeParts(jobId);
      this.ended();
    }
  }

  /** Cancels a queued or running job; false when it had finished already. */
  async cancel(jobId: string): Promise<boolean> {
    if (!(await this.deps.store.end(jobId, ['queued', 'running'], 'canceled', {}, this.settings.retentionMs))) return false;
    // Its parts rendering here stop now (another process's stop at their next lease renewal).
    for (const slot of this.rendering.values()) if (slot.part.jobId === jobId) slot.halt();
    await this.closeMoney((await this.deps.store.get(jobId))!);
    await this.removeParts(jobId);
    this.ended();
    return true;
  }

  /** A job ended: its webhook goes now (not at the next sweep), and a queued job of the account may start. */
  private ended(): void {
    void this.sendWebhooks().catch((err) => this.deps.logger.error({ err }, 'sending job webhooks failed'));
    this.wake();
  }

  /** Removes a finished job with its files. */
  async remove(job: JobRow): Promise<void> {
    const keys = [...(await this.deps.store.partKeys(job.id)), job.audio_key, job.timeline_key].filter((k): k is string => !!k);
    await Promise.all(keys.map((k) => this.deps.blobs.delete(k).catch(() => {})));
    await this.deps.store.remove(job.id);
  }

  /**
   * Settles a succeeded job's reservation (the full price, once), releases any other's. The job ends
   * before its money closes (a cancel may win the race to end it); a read of an ended job with money
   * still held closes it first, so nobody sees "succeeded" with the price still reserved. Closing
   * twice is safe: the wallet's first settle or release wins.
   */
  async closeMoney(job: JobRow): Promise<JobRow> {
    const reservation = await this.deps.wallet.reservation(job.reservation_id);
    const settle = job.status === 'succeeded';
    if (reservation) {
      if (settle) await reservation.settle(undefined, `job ${job.id}: ${job.chars_total} characters`);
      else await reservation.release(`job ${job.id} ${job.status}`);
    }
    await this.deps.store.setMoney(job.id, settle ? 'settled' : 'released');
    return { ...job, money: settle ? 'settled' : 'released' };
  }

  private async removeParts(jobId: string): Promise<void> {
    const keys = await this.deps.store.partKeys(jobId);
    await Promise.all(keys.map((k) => this.deps.blobs.delete(k).catch(() => {})));
  }

  /** What no request waits for: last steps left by a dead process, money, retention, webhooks. */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce().catch((err) => this.deps.logger.error({ err }, 'job sweep failed')).finally(() => {
      this.sweeping = null;
    });
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    const { store } = this.deps;
    for (const job of await store.moneyToClose()) await this.closeMoney(job);
    await this.releaseOrphanReservations().catch((err) => this.deps.logger.error({ err }, 'releasing job reservations with no job failed'));
    for (const id of await store.finishable()) {
      if (this.stopped) return;
      await this.finish(id);
    }
    for (const job of await store.expired()) {
      if ((FINISHED as JobStatus[]).includes(job.status)) await this.remove(job);
    }
    await this.sendWebhooks();
  }

  /**
   * Releases in full the durable reservations that no job holds: a process died after reserving a
   * submit's price and before storing its job (the client got no job id, so nothing would ever
   * close it). Only those older than orphanGraceMs, so that a submit still between the two
   * writes, on any node, keeps its money.
   */
  private async releaseOrphanReservations(): Promise<void> {
    const { store, wallet, logger } = this.deps;
    for (const id of await store.orphanReservations(Date.now() - this.settings.orphanGraceMs)) {
      const reservation = await wallet.reservation(id);
      if (!reservation) continue;
      logger.warn({ reservationId: id, accountId: reservation.accountId, amount: reservation.amount }, 'releasing a job reservation that has no job (a submit was cut off)');
      await reservation.release('a job submit was cut off before its job was stored');
    }
  }

  private async sendWebhooks(): Promise<void> {
    const { store, logger } = this.deps;
    const w = this.settings.webhook;
    for (const job of await store.claimWebhooks(w.timeoutMs + 5000)) {
      const secret = await store.webhookSecret(job.account_id);
      const now = Date.now();
      if (!secret || !job.callback_url) {
        await store.recordWebhook(job.id, { state: 'failed', status: null, error: 'the account has no webhook secret', nextAt: null });
        continue;
      }
      const result = await deliver(job.callback_url, secret, webhookBody(job), w, now);
      if (result.ok) {
        await store.recordWebhook(job.id, { state: 'delivered', status: result.status, error: null, nextAt: null });
        continue;
      }
      const next = nextAttemptAt(job.webhook_attempts + 1, Date.parse(job.finished_at ?? job.created_at), Date.now(), w.retryBaseMs, w.retryWindowMs);
      logger.warn({ jobId: job.id, status: result.status, error: result.error, retryAt: next === null ? null : new Date(next).toISOString() }, 'job webhook not delivered');
      await store.recordWebhook(job.id, { state: next === null ? 'failed' : 'pending', status: result.status, error: result.error, nextAt: next });
    }
  }
}
