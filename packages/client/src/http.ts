import { ConnectionError, errorFromResponse, type SawtError } from './errors.js';

/** When to retry answers 429: off unless asked. */
export interface RetryOptions {
  /** Retries after a 429 (42901 concurrency, 42902 rate limit; never 42903 quota exhausted). Default 0. */
  maxRetries?: number;
  /** Wait when the answer has no Retry-After (doubling each time), ms. Default 1000. */
  baseDelayMs?: number;
  /** Longest wait accepted; a longer Retry-After ends the retries with the error. Default 60000. */
  maxDelayMs?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
  retry?: RetryOptions;
}

export interface Transport {
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  retry: RetryOptions;
}

const RETRYABLE = new Set([42901, 42902]);

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** One API call: x-api-key, a typed SawtError for a non-2xx answer, 429 retried when asked; resolves with the body unread. */
export async function request(t: Transport, method: string, path: string, init: { body?: BodyInit; json?: unknown; headers?: Record<string, string> } & RequestOptions = {}): Promise<Response> {
  const retry = { maxRetries: 0, baseDelayMs: 1000, maxDelayMs: 60000, ...t.retry, ...init.retry };
  const headers: Record<string, string> = { ...init.headers, 'x-api-key': t.apiKey };
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  for (let attempt = 0; ; attempt++) {
    let res: Response;
    try {
      res = await t.fetch(`${t.baseUrl}${path}`, { method, headers, body, signal: init.signal });
    } catch (e) {
      if (init.signal?.aborted) throw init.signal.reason ?? e;
      throw new ConnectionError(`Could not reach ${t.baseUrl}: ${(e as Error).message}`, 0, 0, undefined, undefined, { cause: e });
    }
    if (res.ok) return res;
    const err: SawtError = await errorFromResponse(res);
    if (attempt >= retry.maxRetries || !RETRYABLE.has(err.errorCode)) throw err;
    const wait = err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : retry.baseDelayMs * 2 ** attempt;
    if (wait > retry.maxDelayMs) throw err;
    await sleep(wait, init.signal);
  }
}

/** A file for a multipart field: a Blob/File as is; bytes become a Blob named `name`. */
export type AudioInput = Blob | Uint8Array | ArrayBuffer;

export function appendFile(form: FormData, field: string, file: AudioInput, name: string): void {
  if (file instanceof Blob) form.append(field, file, (file as File).name || name);
  else form.append(field, new Blob([file as BlobPart], { type: guessType(name) }), name);
}

function guessType(name: string): string {
  const ext = name.split('.').pop()?.toLowerCase();
  return { wav: 'audio/wav', mp3: 'audio/mpeg', m4a: 'audio/mp4', flac: 'audio/flac', ogg: 'audio/ogg', webm: 'audio/webm', pcm: 'audio/raw' }[ext ?? ''] ?? 'application/octet-stream';
}

export function appendFields(form: FormData, fields: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(fields)) if (v !== undefined && v !== null) form.append(k, String(v));
}
