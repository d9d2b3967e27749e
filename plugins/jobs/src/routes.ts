/**
 * The jobs API, declared through the plugin route contract (API key, `tts` scope, rate limit,
 * error shape and OpenAPI come with it): submit, look up, list, download (with Range), captions,
 * chapters, cancel or delete, and the account's webhook secret.
 */
import { createReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readFile } from 'node:fs/promises';
import {
  OUTPUT_FORMAT_NAMES, SawtError, billableChars, countChars, defineFields, errors, isSsmlText, meetsTextMinimum, outputFormat, parseDictionaryLocators, preparePaidSpeech,
  resolveModelFor, resolveVoiceFor, synthesisRate, validateFields, TEXT_TOO_SHORT_MESSAGE, type DictionaryLocator,
  type AuthContext, type BlobStore, type FieldValues, type HttpRoutes, type PaidSynthesisServices, type RouteRequest, type Wallet, type Plan,
} from '@sawt/core';
import { toSrt, toWebVtt } from './captions.js';
import type { Timeline } from './assemble.js';
import { FINISHED, JobStore, type JobRow } from './job-store.js';
import { splitParts, type TextPart } from './parts.js';
import { billedAs, dictionaryParts, ssmlParts } from './prepared-parts.js';
import type { JobRunner } from './runner.js';
import { spokenText, type TextFormat } from './spoken-text.js';
import { resolveWebhookTarget, type WebhookAllowList } from './webhook-target.js';

export interface JobRouteDeps {
  store: JobStore;
  runner: JobRunner;
  services: Pick<PaidSynthesisServices, 'models' | 'voices' | 'accounts' | 'synthesizer'>;
  wallet: Wallet;
  blobs: BlobStore;
  allow: WebhookAllowList;
  maxChars: number;
  maxJsonBytes: number;
  maxFileBytes: number;
  partChars: number;
  defaultFormat: string;
  jobLimit: (plan: Plan) => number | null;
}

const FORMATS = OUTPUT_FORMAT_NAMES as readonly string[];

const settingsFields = {
  voice_id: { type: 'string', required: true, maxLength: 200, description: 'A voice of GET /voices' },
  output_format: { type: 'string', enum: FORMATS, description: 'Format of the audio (default mp3_44100_64)' },
  stability: { type: 'number', minimum: 0, maximum: 1, default: 0.5, description: '0.0 to 1.0; higher gives more consistent output' },
  speed: { type: 'number', minimum: 0.7, maximum: 1.2, default: 1, description: '0.7 to 1.2; below 1.0 slows speech, above speeds it' },
  title: { type: 'string', maxLength: 300, description: 'A name for the job (lists, webhooks)' },
  callback_url: { type: 'string', format: 'http-url', maxLength: 2000, description: 'POSTed the outcome, signed with the account\'s webhook secret (POST /webhooks/secret first)' },
  text_format: { type: 'string', enum: ['auto', 'plain', 'markdown'] as const, description: 'How the text is read: markdown drops its markup (not spoken, not billed); auto (default) when it looks like Markdown' },
  text_type: { type: 'string', enum: ['text', 'ssml'] as const, description: 'ssml: the text is an SSML document (README, SSML), text_format does not apply; text (default): plain text or Markdown. A text starting with <speak is SSML either way' },
} as const;

const jsonFields = defineFields({
  ...settingsFields,
  text: { type: 'string', required: true, description: 'The text (up to 1,000,000 characters; at least 3 words and 10 characters)' },
});
const uploadFields = defineFields({
  ...settingsFields,
  pronunciation_dictionary_locators: { type: 'string', maxLength: 4000, description: 'A JSON array of at most 3 {pronunciation_dictionary_id, version_id?} (in a JSON body: the array itself), applied to the whole text' },
});

const jobIdParam = { name: 'job_id', in: 'path', required: true, schema: { type: 'string' }, description: 'The job_id given at submit' };
const errorSchema = { $ref: '#/components/schemas/Error' };

const jobSchema = {
  type: 'object',
  required: ['job_id', 'status', 'progress', 'characters', 'characters_done', 'audio_seconds', 'created_at'],
  properties: {
    job_id: { type: 'string' },
    status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'canceled'] },
    title: { type: ['string', 'null'] },
    model_id: { type: 'string' },
    voice_id: { type: 'string' },
    output_format: { type: 'string' },
    progress: { type: 'number', minimum: 0, maximum: 1, description: 'Share of the text rendered; never goes back; 1 once succeeded' },
    characters: { type: 'integer', description: 'Billable characters of the spoken text' },
    characters_done: { type: 'integer' },
    audio_seconds: { type: 'number', description: 'Seconds of audio rendered so far' },
    eta_seconds: { type: ['number', 'null'], description: 'Estimated seconds until the job ends (null: not known yet)' },
    cost: { type: 'string', description: 'The price reserved at submit, charged on success' },
    error: { type: ['object', 'null'], properties: { status: { type: 'integer' }, errorCode: { type: 'integer' }, errorMessage: { type: 'string' } } },
    webhook: {
      type: ['object', 'null'],
      properties: { state: { type: ['string', 'null'], enum: ['pending', 'delivered', 'failed', null] }, attempts: { type: 'integer' }, last_status: { type: ['integer', 'null'] }, last_error: { type: ['string', 'null'] } },
    },
    audio_url: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    started_at: { type: ['string', 'null'] },
    finished_at: { type: ['string', 'null'] },
    expires_at: { type: ['string', 'null'], description: 'When the job and its files are removed' },
  },
} as const;

function jobNotFound(id: string): SawtError {
  return new SawtError('notFound', `Job '${String(id).slice(0, 100)}' not found`);
}

function notFinished(job: JobRow, what: string): SawtError {
  const why = job.status === 'queued' || job.status === 'running'
    ? `is ${job.status} (progress ${Math.round(progress(job) * 100)} %); ask again once its status is succeeded`
    : `${job.status === 'failed' ? 'failed' : 'was canceled'} and has none`;
  return new SawtError('jobNotFinished', `Job '${job.id}' has no ${what} yet: it ${why}`);
}

function progress(job: JobRow): number {
  if (job.status === 'succeeded') return 1;
  // Joining the parts is the last 1 %: 1 means the audio can be downloaded.
  return job.chars_total > 0 ? Math.min(0.99, job.chars_done / job.chars_total) : 0;
}

function formatMicroAmount(micro: number): string {
  return (micro / 1e6).toFixed(6).replace(/\.?0+$/, '') || '0';
}

export function jobView(job: JobRow, now = Date.now()): Record<string, unknown> {
  const audioSeconds = Math.round((Number(job.samples_done) / job.synthesis_rate) * 1000) / 1000;
  let eta: number | null = null;
  if (job.status === 'running' && job.started_at && job.chars_done > 0) {
    const elapsed = (now - Date.parse(job.started_at)) / 1000;
    eta = Math.round((elapsed / job.chars_done) * (job.chars_total - job.chars_done) * 10) / 10;
  }
  return {
    job_id: job.id, status: job.status, title: job.title, model_id: job.model_id, voice_id: job.voice_id, output_format: job.output_format,
    progress: progress(job), characters: job.chars_total, characters_done: job.chars_done, audio_seconds: audioSeconds, eta_seconds: eta,
    cost: formatMicroAmount(Number(job.cost_micro)),
    error: job.error_code === null ? null : { status: job.error_status, errorCode: job.error_code, errorMessage: job.error_message },
    webhook: job.callback_url ? { state: job.webhook_state, attempts: job.webhook_attempts, last_status: job.webhook_last_status, last_error: job.webhook_last_error } : null,
    audio_url: job.status === 'succeeded' ? `${job.api_base}/api/v1/jobs/${job.id}/audio` : null,
    created_at: job.created_at, started_at: job.started_at, finished_at: job.finished_at, expires_at: job.expires_at,
  };
}

/** The origin the client reached (audio_url in webhooks and job views). */
function originOf(raw: IncomingMessage): string {
  const encrypted = (raw.socket as { encrypted?: boolean }).encrypted === true;
  return `${encrypted ? 'https' : 'http'}://${raw.headers.host ?? 'localhost'}`;
}

/** A JSON body read by the route itself, so that its limit fits a 1,000,000-character text. */
async function readJson(raw: IncomingMessage, maxBytes: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of raw) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      raw.resume();
      throw errors.validation(`The request body is larger than ${maxBytes} bytes, the limit of this route (text: up to 1,000,000 characters)`);
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw errors.validation('The request body is not valid JSON');
  }
}

/** A text file's contents: UTF-8 text, not empty, not binary. */
function textOfFile(bytes: Buffer): string {
  if (bytes.length === 0) throw errors.validation('file is empty: send a UTF-8 text or Markdown file');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw errors.validation('file is not UTF-8 text: send a UTF-8 text or Markdown file (convert other encodings to UTF-8 first)');
  }
  // NUL and other C0 controls besides tab and line breaks do not occur in text.
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) controls = Infinity;
    else if (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0b && c !== 0x0c && c !== 0x0d) controls++;
  }
  if (controls > text.length / 100) throw errors.validation('file is binary, not text: send a UTF-8 text or Markdown file');
  return text.replace(/^\uFEFF/u, '');
}

interface Submission {
  fields: FieldValues<typeof uploadFields>;
  text: string;
  locators: DictionaryLocator[] | undefined;
}

/** `pronunciation_dictionary_locators` of a multipart upload: its field holds the JSON array. */
function uploadedLocators(raw: string | undefined): DictionaryLocator[] | undefined {
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw errors.validation('pronunciation_dictionary_locators must be a JSON array of {pronunciation_dictionary_id, version_id?}');
  }
  return parseDictionaryLocators(parsed);
}

export function registerJobRoutes(http: HttpRoutes, deps: JobRouteDeps): void {
  const { store, runner } = deps;

  async function ownJob(req: RouteRequest, id: string): Promise<JobRow> {
    const job = await store.get(id);
    // Another account's job is not there for this one.
    if (!job || job.account_id !== req.auth!.account.id) throw jobNotFound(id);
    return withMoneyClosed(job);
  }

  /** An ended job as its client may see it: its money closed (the runner closes it just after ending it). */
  function withMoneyClosed(job: JobRow): Promise<JobRow> | JobRow {
    return (FINISHED as string[]).includes(job.status) && job.money === 'held' ? runner.closeMoney(job) : job;
  }

  async function submission(req: RouteRequest<Record<never, never>, typeof uploadFields>): Promise<Submission> {
    if (/^multipart\/form-data/i.test(String(req.headers['content-type'] ?? ''))) {
      const upload = await req.upload();
      const file = upload.files.file;
      if (!file) throw errors.validation('file is required: a UTF-8 text or Markdown file (or send JSON with text)');
      return { fields: upload.fields, text: textOfFile(await readFile(file.path)), locators: uploadedLocators(upload.fields.pronunciation_dictionary_locators) };
    }
    if (!/^application\/json/i.test(String(req.headers['content-type'] ?? ''))) {
      req.raw.resume();
      throw errors.validation('Send application/json with text, or multipart/form-data with a UTF-8 text or Markdown file');
    }
    const raw = await readJson(req.raw, deps.maxJsonBytes);
    const { text, ...fields } = validateFields(raw, jsonFields);
    return { fields, text, locators: parseDictionaryLocators((raw as Record<string, unknown>).pronunciation_dictionary_locators) };
  }

  http.route({
    method: 'POST', path: '/text-to-speech/:model_id/jobs', scope: 'tts',
    summary: 'Submits a long text (up to 1,000,000 characters, JSON or a UTF-8 text/Markdown file) as a job: 202 with its job_id; the audio, captions and chapters follow when it succeeds',
    parameters: [{ name: 'model_id', in: 'path', required: true, schema: { type: 'string' }, description: 'The model to use' }],
    upload: {
      files: { file: 'A UTF-8 text or Markdown file (instead of a JSON body with text); Markdown markup is not spoken or billed' },
      fields: uploadFields,
      maxFileBytes: deps.maxFileBytes,
      messages: { notMultipart: 'Send application/json with text, or multipart/form-data with a UTF-8 text or Markdown file' },
    },
    responses: {
      202: {
        description: 'The job was queued; its price is reserved',
        content: { 'application/json': { schema: { type: 'object', required: ['job_id', 'status'], properties: { job_id: { type: 'string' }, status: { type: 'string', enum: ['queued'] } } } } },
      },
    },
    errors: ['insufficientBalance', 'modelAccess', 'notFound', 'quotaExceeded', 'internal'],
  }, async (req, reply) => {
    const auth = req.auth as AuthContext;
    const modelId = req.params.model_id ?? '';
    const { fields, text: source, locators } = await submission(req);
    const model = await resolveModelFor(deps.services, auth, modelId);
    await resolveVoiceFor(deps.services, auth, fields.voice_id, model);
    const format = outputFormat(fields.output_format ?? deps.defaultFormat);
    if (countChars(source) > deps.maxChars) throw errors.validation(`text must be at most ${deps.maxChars} characters (it has ${countChars(source)})`);
    const ssml = isSsmlText(source, fields.text_type);
    const spoken = ssml ? { text: source, chapters: [] } : spokenText(source, (fields.text_format ?? 'auto') as TextFormat);
    if (!ssml && !meetsTextMinimum(spoken.text)) throw errors.validation(TEXT_TOO_SHORT_MESSAGE);
    let callbackUrl: string | null = null;
    if (fields.callback_url) {
      if (!(await store.webhookSecret(auth.account.id))) throw errors.validation('callback_url needs the account\'s webhook secret: make it first with POST /api/v1/webhooks/secret');
      await resolveWebhookTarget(fields.callback_url, deps.allow);
      callbackUrl = fields.callback_url;
    }
    // SSML and dictionaries: the engine prepares the text now (its 400s with line:column, 404 / 40401
    // for a dictionary), before any money; the parts carry what their synthesis reads.
    const prepare = (text: string, textType: 'text' | 'ssml', textRule: boolean) => preparePaidSpeech(deps.services, {
      auth, modelId: model.model_id, text, textType, speed: fields.speed ?? 1, textRule, transport: 'http', ...(locators?.length && { dictionaryLocators: locators }),
    }, model).then((r) => r.prepared);
    let parts: TextPart[];
    let chars: number;
    if (ssml) {
      // Billed as POST /text-to-speech bills the document (say-as and phoneme content as written,
      // never markup), shared among the parts, which speak what it expands to.
      const prepared = await prepare(spoken.text, 'ssml', true);
      chars = billableChars(prepared.billableText);
      parts = billedAs(ssmlParts(prepared.steps, deps.partChars), chars);
    } else {
      parts = locators?.length ? await dictionaryParts(splitParts(spoken.text, deps.partChars), (text) => prepare(text, 'text', false)) : splitParts(spoken.text, deps.partChars);
      chars = parts.some((p) => p.steps) ? parts.reduce((n, p) => n + p.chars, 0) : billableChars(spoken.text);
    }
    if (parts.length === 0) throw errors.validation(TEXT_TOO_SHORT_MESSAGE);
    const id = randomUUID();
    const cost = chars * model.costPerCharMicro;
    const reservation = await deps.wallet.reserveDurable(auth.account.id, cost, {
      requestId: id, description: `job ${id}: ${chars} chars with ${model.model_id}`, quota: { keyId: auth.key.id, chars },
    });
    try {
      await store.create({
        id, accountId: auth.account.id, plan: auth.account.plan, keyId: auth.key.id, modelId: model.model_id, voiceId: fields.voice_id, outputFormat: format.name,
        speed: fields.speed, stability: fields.stability, title: fields.title ?? null, chapters: spoken.chapters, callbackUrl, apiBase: originOf(req.raw),
        charsTotal: chars, synthesisRate: synthesisRate(format), reservationId: reservation.id, costMicro: cost,
      }, parts);
    } catch (e) {
      await reservation.release('the job could not be stored');
      throw e;
    }
    runner.wake();
    reply.json({ job_id: id, status: 'queued' }, 202);
  });

  http.route({
    method: 'GET', path: '/jobs', scope: 'tts',
    summary: 'The account\'s jobs, newest first, a page at a time (next_cursor for the next page)',
    parameters: [
      { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'next_cursor of the page before' },
    ],
    responses: {
      200: {
        description: 'A page of jobs',
        content: { 'application/json': { schema: { type: 'object', required: ['jobs', 'next_cursor'], properties: { jobs: { type: 'array', items: jobSchema }, next_cursor: { type: ['string', 'null'] } } } } },
      },
    },
  }, async (req, reply) => {
    const limitRaw = req.query.limit === undefined ? 20 : Number(req.query.limit);
    if (!Number.isInteger(limitRaw) || limitRaw < 1 || limitRaw > 100) throw errors.validation('limit must be an integer between 1 and 100');
    let cursor: { createdAt: string; id: string } | null = null;
    if (typeof req.query.cursor === 'string' && req.query.cursor) {
      const [createdAt, id] = Buffer.from(req.query.cursor, 'base64url').toString('utf8').split('|');
      if (!createdAt || !id) throw errors.validation('cursor is not a next_cursor of this list');
      cursor = { createdAt, id };
    }
    const rows = await store.list(req.auth!.account.id, limitRaw + 1, cursor);
    const page = await Promise.all(rows.slice(0, limitRaw).map(withMoneyClosed));
    const last = page[page.length - 1];
    const next = rows.length > limitRaw && last ? Buffer.from(`${last.created_at}|${last.id}`).toString('base64url') : null;
    reply.json({ jobs: page.map((j) => jobView(j)), next_cursor: next });
  });

  http.route({
    method: 'GET', path: '/jobs/:job_id', scope: 'tts',
    summary: 'A job: status, progress (0 to 1, never going back), characters and audio seconds done, ETA, error, webhook attempts',
    parameters: [jobIdParam],
    responses: { 200: { description: 'The job', content: { 'application/json': { schema: jobSchema } } } },
    errors: ['notFound'],
  }, async (req, reply) => {
    reply.json(jobView(await ownJob(req, req.params.job_id!)));
  });

  http.route({
    method: 'GET', path: '/jobs/:job_id/audio', scope: 'tts',
    summary: 'The audio of a succeeded job, one continuous file in its output_format (Range requests answered with 206)',
    parameters: [jobIdParam, { name: 'Range', in: 'header', required: false, schema: { type: 'string' }, description: 'bytes=START-END (one range)' }],
    responses: {
      200: { description: 'The whole audio', content: Object.fromEntries([...new Set(FORMATS.map((f) => outputFormat(f).contentType))].map((ct) => [ct, {}])) },
      206: { description: 'The asked byte range (Content-Range)', content: Object.fromEntries([...new Set(FORMATS.map((f) => outputFormat(f).contentType))].map((ct) => [ct, {}])) },
      409: { description: 'The job has not succeeded (40901)', content: { 'application/json': { schema: errorSchema } } },
    },
    errors: ['notFound', 'jobNotFinished', 'rangeNotSatisfiable'],
  }, async (req, reply) => {
    const job = await ownJob(req, req.params.job_id!);
    if (job.status !== 'succeeded' || !job.audio_key) throw notFinished(job, 'audio');
    const format = outputFormat(job.output_format);
    const size = Number(job.audio_bytes);
    const range = parseRange(req.headers.range, size);
    if (range === 'unsatisfiable') {
      throw new SawtError('rangeNotSatisfiable', `The asked range starts past the end of the audio (${size} bytes)`, { headers: { 'content-range': `bytes */${size}`, 'accept-ranges': 'bytes' } });
    }
    const res = reply.takeOver();
    res.setHeader('x-request-id', req.id);
    res.setHeader('accept-ranges', 'bytes');
    res.setHeader('content-disposition', `attachment; filename="${job.id}.${format.extension}"`);
    const [start, end] = range ?? [0, size - 1];
    res.writeHead(range ? 206 : 200, {
      'content-type': format.contentType, 'content-length': String(end - start + 1),
      ...(range ? { 'content-range': `bytes ${start}-${end}/${size}` } : {}),
    });
    if (req.raw.method === 'HEAD' || size === 0) {
      res.end();
      return;
    }
    await sendRange(deps.blobs, job.audio_key, start, end, res);
  });

  const timeline = async (job: JobRow): Promise<Timeline> => {
    if (job.status !== 'succeeded' || !job.timeline_key) throw notFinished(job, 'captions or chapters');
    const chunks: Buffer[] = [];
    for await (const c of await deps.blobs.get(job.timeline_key)) chunks.push(c as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Timeline;
  };

  for (const [ext, contentType, render, name] of [
    ['vtt', 'text/vtt; charset=utf-8', toWebVtt, 'WebVTT'],
    ['srt', 'application/x-subrip; charset=utf-8', toSrt, 'SubRip'],
  ] as const) {
    http.route({
      method: 'GET', path: `/jobs/:job_id/captions.${ext}`, scope: 'tts',
      summary: `Sentence captions of a succeeded job (${name}), timed from the speech, in order, covering the audio`,
      parameters: [jobIdParam],
      responses: {
        200: { description: `${name} captions`, content: { [contentType]: {} } },
        409: { description: 'The job has not succeeded (40901)', content: { 'application/json': { schema: errorSchema } } },
      },
      errors: ['notFound', 'jobNotFinished'],
    }, async (req, reply) => {
      const job = await ownJob(req, req.params.job_id!);
      reply.send(Buffer.from(render((await timeline(job)).cues)), contentType);
    });
  }

  http.route({
    method: 'GET', path: '/jobs/:job_id/chapters', scope: 'tts',
    summary: 'Chapters of a succeeded job (Markdown headings, or the sections between blank lines of plain text): title and start time',
    parameters: [jobIdParam],
    responses: {
      200: {
        description: 'The chapters in order',
        content: {
          'application/json': {
            schema: {
              type: 'object', required: ['job_id', 'chapters'],
              properties: { job_id: { type: 'string' }, chapters: { type: 'array', items: { type: 'object', required: ['title', 'start_seconds'], properties: { title: { type: 'string' }, start_seconds: { type: 'number' } } } } },
            },
          },
        },
      },
      409: { description: 'The job has not succeeded (40901)', content: { 'application/json': { schema: errorSchema } } },
    },
    errors: ['notFound', 'jobNotFinished'],
  }, async (req, reply) => {
    const job = await ownJob(req, req.params.job_id!);
    reply.json({ job_id: job.id, chapters: (await timeline(job)).chapters });
  });

  http.route({
    method: 'DELETE', path: '/jobs/:job_id', scope: 'tts',
    summary: 'Cancels a queued or running job (its reservation released in full), or deletes a finished one with its files',
    parameters: [jobIdParam],
    responses: {
      200: {
        description: 'What was done',
        content: { 'application/json': { schema: { type: 'object', required: ['job_id', 'status'], properties: { job_id: { type: 'string' }, status: { type: 'string', enum: ['canceled', 'deleted'] } } } } },
      },
    },
    errors: ['notFound'],
  }, async (req, reply) => {
    const job = await ownJob(req, req.params.job_id!);
    if (!(FINISHED as string[]).includes(job.status) && (await runner.cancel(job.id))) {
      reply.json({ job_id: job.id, status: 'canceled' });
      return;
    }
    await runner.remove((await store.get(job.id)) ?? job);
    reply.json({ job_id: job.id, status: 'deleted' });
  });

  http.route({
    method: 'POST', path: '/webhooks/secret', scope: 'tts',
    summary: 'Makes or rotates the account\'s webhook secret and returns it, this once (job webhooks are signed with it: Sawt-Signature)',
    responses: {
      200: { description: 'The new secret', content: { 'application/json': { schema: { type: 'object', required: ['secret'], properties: { secret: { type: 'string' } } } } } },
    },
  }, async (req, reply) => {
    reply.json({ secret: await store.rotate(req.auth!.account.id) });
  });
}

/** One byte range of `bytes=…` (null: the whole file; 'unsatisfiable': past the end). Several ranges get the whole file. */
export function parseRange(header: string | undefined, size: number): [number, number] | null | 'unsatisfiable' {
  const m = /^bytes=(\d*)-(\d*)$/.exec((header ?? '').trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return [start, end];
}

async function sendRange(blobs: BlobStore, key: string, start: number, end: number, res: ServerResponse): Promise<void> {
  const local = blobs.localPath(key);
  const source: Readable = local ? createReadStream(local, { start, end }) : (await blobs.get(key)).pipe(byteWindow(start, end));
  await pipeline(source, res).catch(() => {});
}

/** Passes bytes start..end (inclusive) of a stream. */
function byteWindow(start: number, end: number): Transform {
  let at = 0;
  return new Transform({
    transform(chunk: Buffer, _e, cb) {
      const from = Math.max(0, start - at);
      const to = Math.min(chunk.length, end + 1 - at);
      at += chunk.length;
      cb(null, to > from ? chunk.subarray(from, to) : undefined);
    },
  });
}
