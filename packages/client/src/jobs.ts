import type { ErrorCode, OutputFormat } from './generated/api-types.js';
import { appendFields, request, type RequestOptions, type Transport } from './http.js';
import type { DictionaryLocator } from './pronunciation-dictionaries.js';

/** What a job is doing; the last three are final. */
export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

/** A long text to speak as a job (POST /text-to-speech/{model_id}/jobs). Give `text` or `file`. */
export interface JobRequest {
  voice_id: string;
  /** Up to 1,000,000 characters; Markdown markup is neither spoken nor billed. */
  text?: string;
  /** A UTF-8 text or Markdown file instead of `text` (sent as multipart). */
  file?: Blob | Uint8Array | ArrayBuffer;
  /** The file's name (its extension tells Markdown from plain text). Default `text.txt`. */
  fileName?: string;
  /** Default mp3_44100_64. */
  output_format?: OutputFormat;
  speed?: number;
  stability?: number;
  /** Shown in the job's view and its webhook. */
  title?: string;
  /** POSTed the outcome, signed with the account's webhook secret (make it first). */
  callback_url?: string;
  /** `auto` (default) reads a text as Markdown when it looks like it. */
  text_format?: 'auto' | 'markdown' | 'plain';
  /** ssml: text (or the file) is an SSML document: markup neither spoken nor billed; text_format does not apply. A text starting with <speak is SSML either way. */
  text_type?: 'text' | 'ssml';
  /** At most 3 pronunciation dictionaries for the whole text (404 / 40401 at submit, before money, for an unknown or another account's one). */
  pronunciation_dictionary_locators?: DictionaryLocator[];
}

/** POST …/jobs answers 202 with this. */
export interface JobCreated {
  job_id: string;
  status: 'queued';
}

/** A job as GET /jobs/{job_id} answers it. */
export interface Job {
  job_id: string;
  status: JobStatus;
  title: string | null;
  model_id: string;
  voice_id: string;
  output_format: OutputFormat;
  /** 0 to 1, never going back; 1 once succeeded. */
  progress: number;
  /** Billable characters of the spoken text. */
  characters: number;
  characters_done: number;
  audio_seconds: number;
  /** Seconds left while it runs (from its pace so far); null otherwise. */
  eta_seconds: number | null;
  /** The price, a decimal amount (reserved at submit, charged on success). */
  cost: string;
  error: { status: number; errorCode: ErrorCode; errorMessage: string } | null;
  webhook: { state: 'pending' | 'delivered' | 'failed' | null; attempts: number; last_status: number | null; last_error: string | null } | null;
  /** Where its audio is (with the API key), once it has succeeded. */
  audio_url: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
}

/** One page of GET /jobs, newest first. */
export interface JobPage {
  jobs: Job[];
  /** Pass as `cursor` for the next page; null on the last. */
  next_cursor: string | null;
}

export interface JobChapters {
  job_id: string;
  chapters: Array<{ title: string; start_seconds: number }>;
}

const FINAL: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'canceled']);
const jobPath = (id: string) => `/jobs/${encodeURIComponent(id)}`;

/**
 * Long-form jobs: a text of up to 1,000,000 characters rendered in the background, fetched
 * as one audio file with captions and chapters once it has succeeded (before that, its
 * audio is a 409 / 40901 error).
 */
export class Jobs {
  constructor(private readonly transport: Transport) {}

  /** Submits a job; resolves `{job_id, status: 'queued'}` (its price is reserved now). */
  async create(modelId: string, req: JobRequest, opts: RequestOptions = {}): Promise<JobCreated> {
    const { file, fileName, ...fields } = req;
    const path = `/text-to-speech/${encodeURIComponent(modelId)}/jobs`;
    if (file === undefined) return (await request(this.transport, 'POST', path, { ...opts, json: fields })).json();
    if (fields.text !== undefined) throw new TypeError('jobs.create: give text or file, not both');
    const form = new FormData();
    // The locators go as one field holding their JSON array.
    const { pronunciation_dictionary_locators: locators, ...rest } = fields;
    appendFields(form, rest);
    if (locators) form.append('pronunciation_dictionary_locators', JSON.stringify(locators));
    const name = fileName ?? ((file instanceof Blob && (file as File).name) || 'text.txt');
    form.append('file', file instanceof Blob ? file : new Blob([file as BlobPart], { type: /\.(md|markdown)$/i.test(name) ? 'text/markdown' : 'text/plain' }), name);
    return (await request(this.transport, 'POST', path, { ...opts, body: form })).json();
  }

  /** The job's status, progress, figures and error (another account's job is 404). */
  async get(jobId: string, opts: RequestOptions = {}): Promise<Job> {
    return (await request(this.transport, 'GET', jobPath(jobId), opts)).json();
  }

  /** The account's jobs, newest first, a page at a time. */
  async list(opts: RequestOptions & { limit?: number; cursor?: string } = {}): Promise<JobPage> {
    const { limit, cursor, ...rest } = opts;
    const q = new URLSearchParams();
    if (limit !== undefined) q.set('limit', String(limit));
    if (cursor !== undefined) q.set('cursor', cursor);
    const query = q.toString();
    return (await request(this.transport, 'GET', `/jobs${query ? `?${query}` : ''}`, rest)).json();
  }

  /** Cancels a queued or running job (its reservation released in full), or deletes a finished one with its files. */
  async cancel(jobId: string, opts: RequestOptions = {}): Promise<{ job_id: string; status: 'canceled' | 'deleted' }> {
    return (await request(this.transport, 'DELETE', jobPath(jobId), opts)).json();
  }

  /** A succeeded job's audio in its output_format (`range`: bytes `start`–`end`, both included). */
  async download(jobId: string, opts: RequestOptions & { range?: { start: number; end?: number } } = {}): Promise<Uint8Array> {
    const { range, ...rest } = opts;
    const headers = range ? { range: `bytes=${range.start}-${range.end ?? ''}` } : undefined;
    const res = await request(this.transport, 'GET', `${jobPath(jobId)}/audio`, { ...rest, headers });
    return new Uint8Array(await res.arrayBuffer());
  }

  /** A succeeded job's sentence captions, WebVTT or SubRip. */
  async captions(jobId: string, format: 'vtt' | 'srt' = 'vtt', opts: RequestOptions = {}): Promise<string> {
    return (await request(this.transport, 'GET', `${jobPath(jobId)}/captions.${format}`, opts)).text();
  }

  /** A succeeded job's chapters: Markdown headings, or the blank-line sections of plain text. */
  async chapters(jobId: string, opts: RequestOptions = {}): Promise<JobChapters> {
    return (await request(this.transport, 'GET', `${jobPath(jobId)}/chapters`, opts)).json();
  }

  /**
   * Polls the job until it has succeeded, failed or been canceled, and resolves its last view;
   * `onProgress` sees every view. It does not throw on a failed job: read `job.error`.
   */
  async wait(jobId: string, opts: RequestOptions & { intervalMs?: number; onProgress?: (job: Job) => void } = {}): Promise<Job> {
    const { intervalMs = 1000, onProgress, ...rest } = opts;
    for (;;) {
      const job = await this.get(jobId, rest);
      onProgress?.(job);
      if (FINAL.has(job.status)) return job;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, intervalMs);
        rest.signal?.addEventListener('abort', () => { clearTimeout(timer); reject(rest.signal!.reason); }, { once: true });
      });
    }
  }
}
