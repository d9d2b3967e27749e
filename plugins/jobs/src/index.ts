import { availableParallelism } from 'node:os';
import { PLANS, definePlugin, outputFormat, tokens, type FromSchema, type Plan } from '@sawt/core';
import { JobStore } from './job-store.js';
import { jobMigrations } from './migrations.js';
import { registerJobRoutes } from './routes.js';
import { JobRunner } from './runner.js';
import { parseAllowList } from './webhook-target.js';

export { spokenText, looksLikeMarkdown, type Chapter, type SpokenText } from './spoken-text.js';
export { splitParts, sentenceStarts, type TextPart } from './parts.js';
export { ssmlParts } from './prepared-parts.js';
export { PartCues, toSrt, toWebVtt, type Cue } from './captions.js';
export { signature, SIGNATURE_HEADER } from './webhooks.js';
export { parseAllowList, resolveWebhookTarget } from './webhook-target.js';
export { rf64Header, wavFileHeader } from './assemble.js';
export { parseRange } from './routes.js';

/** Jobs an account of each plan may have running at once (null: no limit); its other jobs wait queued. */
export const DEFAULT_JOBS_PER_PLAN: Record<Plan, number | null> = { free: 1, basic: 2, starter: 3, growth: 5, scale: 10, enterprise: null };

const planLimit = { type: ['integer', 'null'], minimum: 1 } as const;

const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    runners: { type: ['integer', 'null'], minimum: 0, default: null, description: 'Job runners in this process (parts rendered at once); null: one per CPU core; 0: this process renders no jobs (it still takes them)' },
    partChars: { type: 'integer', minimum: 50, default: 1500, description: 'Characters of text per part: the unit a runner renders under one lease and a restart resumes from' },
    maxChars: { type: 'integer', minimum: 10, default: 1_000_000, description: 'Longest text of a job (characters)' },
    maxJsonBytes: { type: 'integer', minimum: 1024, default: 8 * 1024 * 1024, description: 'Largest JSON body of the submit route (1,000,000 characters of Arabic are about 2 MB, escaped up to 6 MB)' },
    maxFileBytes: { type: 'integer', minimum: 1024, default: 4 * 1024 * 1024, description: 'Largest text or Markdown file of the submit route' },
    defaultOutputFormat: { type: 'string', default: 'mp3_44100_64' },
    leaseMs: { type: 'integer', minimum: 500, default: 30_000, description: 'How long a part (or the last step) stays held after its runner\'s last renewal: a dead runner\'s part is taken over after this' },
    pollMs: { type: 'integer', minimum: 10, default: 1000, description: 'How often an idle runner looks for work submitted on another node' },
    sweepMs: { type: 'integer', minimum: 100, default: 5000, description: 'How often the sweep looks for unfinished last steps, webhooks due and expired jobs' },
    maxAttempts: { type: 'integer', minimum: 1, default: 3, description: 'Tries of a part before its job fails' },
    background: { type: 'boolean', default: true, description: 'Render parts as background work in the engine (SynthesisRequest.background): nothing of theirs is urgent in the native pools, so live requests\' first audio goes first; false: a part\'s first sentences are urgent like a live request\'s' },
    orphanGraceMs: { type: 'integer', minimum: 1000, default: 600_000, description: 'A job\'s price reserved this long ago whose job was never stored (the process died between the two writes of a submit) is released by the sweep' },
    retentionHours: { type: 'number', exclusiveMinimum: 0, default: 168, description: 'How long a finished job and its files are kept (default 7 days)' },
    jobsPerPlan: {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(PLANS.map((p) => [p, planLimit])) as { [P in Plan]: typeof planLimit },
      default: DEFAULT_JOBS_PER_PLAN,
    },
    webhook: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        timeoutMs: { type: 'integer', minimum: 100, default: 10_000 },
        retryBaseMs: { type: 'integer', minimum: 10, default: 10_000, description: 'First retry delay; doubled each time, at most an hour' },
        retryWindowHours: { type: 'number', exclusiveMinimum: 0, default: 24 },
      },
    },
  },
} as const;

export type JobsOptions = FromSchema<typeof configSchema>;

/** Long-form speech as durable jobs (issue 33). */
export default definePlugin({
  id: 'jobs',
  provides: [tokens.webhookSecrets],
  // Without an HTTP server (admin commands, the primary of `sawt serve --workers`) it only adds its
  // migrations, which the primary then applies once; routes and runners live where requests are served.
  optionalDeps: { http: tokens.httpServer },
  deps: {
    db: tokens.database, blobs: tokens.blobStore, wallet: tokens.wallet, synthesizer: tokens.synthesizer,
    models: tokens.models, voices: tokens.voices, accounts: tokens.accounts, workDir: tokens.workDir,
  },
  configSchema,
  register(ctx, { http, db, blobs, wallet, synthesizer, models, voices, accounts, workDir }) {
    const o = ctx.options;
    outputFormat(o.defaultOutputFormat);
    db.addMigrations(ctx.pluginId, jobMigrations);
    const store = new JobStore(db);
    ctx.provide(tokens.webhookSecrets, store);
    if (!http) return;
    const limits = { ...DEFAULT_JOBS_PER_PLAN, ...o.jobsPerPlan };
    const jobLimit = (plan: Plan) => limits[plan] ?? null;
    const allow = parseAllowList(process.env.SAWT_WEBHOOK_ALLOW);
    const runner = new JobRunner({ store, synthesizer, blobs, wallet, workDir, logger: ctx.logger }, {
      runners: o.runners ?? availableParallelism(),
      leaseMs: o.leaseMs, pollMs: o.pollMs, sweepMs: o.sweepMs, retentionMs: Math.round(o.retentionHours * 3_600_000), maxAttempts: o.maxAttempts, orphanGraceMs: o.orphanGraceMs, background: o.background, jobLimit,
      webhook: { timeoutMs: o.webhook.timeoutMs, retryBaseMs: o.webhook.retryBaseMs, retryWindowMs: Math.round(o.webhook.retryWindowHours * 3_600_000), allow, userAgent: 'Sawt-Webhooks/1' },
    });
    registerJobRoutes(http, {
      store, runner, wallet, blobs, allow, jobLimit, services: { models, voices, accounts, synthesizer },
      maxChars: o.maxChars, maxJsonBytes: o.maxJsonBytes, maxFileBytes: o.maxFileBytes, partChars: o.partChars, defaultFormat: o.defaultOutputFormat,
    });
    return {
      start() {
        runner.start();
      },
      async stop() {
        await runner.stop();
      },
    };
  },
});
