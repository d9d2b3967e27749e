/**
 * The client-visible error table: one place for every errorCode, its HTTP status,
 * its type name and what it means. Everything a client can see is a SawtError.
 */
export interface ErrorKind {
  code: number;
  status: number;
  type: string;
  meaning: string;
}

export const ERRORS = {
  validation: { code: 40001, status: 400, type: 'ValidationError', meaning: 'Empty or missing required fields, text too short, out-of-range values, invalid message type, payload too large, malformed body.' },
  authentication: { code: 40101, status: 401, type: 'AuthenticationError', meaning: 'Missing, malformed, unknown, expired, revoked or deleted API key.' },
  insufficientBalance: { code: 40201, status: 402, type: 'InsufficientBalanceError', meaning: 'Wallet balance too low; the message states the required and available amounts.' },
  modelAccess: { code: 40301, status: 403, type: 'ModelAccessError', meaning: 'The model is not enabled for the account.' },
  endpointNotAllowed: { code: 40302, status: 403, type: 'EndpointNotAllowedError', meaning: 'The API key is restricted to other endpoints.' },
  notFound: { code: 40401, status: 404, type: 'NotFoundError', meaning: 'Model, voice or endpoint not found.' },
  requestTimeout: { code: 40801, status: 408, type: 'RequestTimeoutError', meaning: 'The request (its headers or body) did not arrive in time; the connection is closed.' },
  uriTooLong: { code: 41401, status: 414, type: 'UriTooLongError', meaning: 'The URL or one of its path parameters is too long.' },
  headersTooLarge: { code: 43101, status: 431, type: 'HeadersTooLargeError', meaning: 'The request headers are too large; the connection is closed.' },
  concurrency: { code: 42901, status: 429, type: 'ConcurrencyLimitError', meaning: "Concurrent request limit of the account's plan exceeded; the message states the maximum and the current count." },
  rateLimit: { code: 42902, status: 429, type: 'RateLimitError', meaning: 'Too many requests for this key in the current time window; Retry-After says when to retry.' },
  quotaExceeded: { code: 42903, status: 429, type: 'QuotaExceededError', meaning: "The key's character quota is exhausted." },
  internal: { code: 50001, status: 500, type: 'InternalError', meaning: 'Internal failure of the service, its database, storage or engine.' },
  unavailable: { code: 50001, status: 503, type: 'InternalError', meaning: 'The service is shutting down or not ready, or a speech back end did not answer in time.' },
  rangeNotSatisfiable: { code: 41601, status: 416, type: 'RangeNotSatisfiableError', meaning: 'The asked byte range starts past the end of the file; Content-Range: bytes */SIZE gives its size.' },
  jobNotFinished: { code: 40901, status: 409, type: 'JobNotFinishedError', meaning: 'The long-form job has no audio, captions or chapters yet (queued or running) or none at all (failed or canceled); GET /jobs/{job_id} tells its status.' },
} as const satisfies Record<string, ErrorKind>;

export type ErrorKindName = keyof typeof ERRORS;

export class SawtError extends Error {
  readonly code: number;
  readonly status: number;
  readonly type: string;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(kind: ErrorKindName, message: string, options: { headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const k = ERRORS[kind];
    this.name = k.type;
    this.code = k.code;
    this.status = k.status;
    this.type = k.type;
    this.headers = options.headers ?? {};
  }

  toJSON(): { errorCode: number; errorMessage: string } {
    return { errorCode: this.code, errorMessage: this.message };
  }
}

export const isSawtError = (e: unknown): e is SawtError => e instanceof SawtError;

/** An identifier the client sent, as a message names it: at most 100 characters, so a huge one is not echoed back whole. */
function clip(value: string): string {
  const s = String(value);
  return s.length > 100 ? `${s.slice(0, 100)}…` : s;
}

/** Builders for the errors whose messages carry figures, so the wording lives once. */
export const errors = {
  validation: (message: string) => new SawtError('validation', message),
  authentication: (message = 'Invalid or missing API key. Provide it in the x-api-key header.') => new SawtError('authentication', message),
  keyDeleted: () => new SawtError('authentication', 'Invalid API key: this key has been deleted'),
  insufficientBalance: (required: string, available: string) =>
    new SawtError('insufficientBalance', `Insufficient wallet balance: required ${required}, available ${available}`),
  modelAccess: (modelId: string) => new SawtError('modelAccess', `Model '${modelId}' is not enabled for this account`),
  endpointNotAllowed: (scope: string) => new SawtError('endpointNotAllowed', `This API key is not allowed to call the '${scope}' endpoint`),
  modelNotFound: (modelId: string) => new SawtError('notFound', `Model '${clip(modelId)}' not found`),
  voiceNotFound: (voiceId: string) => new SawtError('notFound', `Voice '${clip(voiceId)}' not found`),
  /** A voice that exists but does not speak on the model; the message names the model's voices. */
  voiceNotOnModel: (voiceId: string, modelId: string, voiceIds: string[]) =>
    new SawtError('notFound', `Voice '${clip(voiceId)}' does not speak on model '${clip(modelId)}'; its voices: ${voiceIds.join(', ') || 'none'} (GET /voices?model_id=${clip(modelId)})`),
  concurrency: (max: number, current: number) =>
    new SawtError('concurrency', `Concurrent request limit exceeded: your plan allows ${max} concurrent request${max === 1 ? '' : 's'} and ${current} ${current === 1 ? 'is' : 'are'} in progress`),
  rateLimit: (retryAfterSeconds: number) =>
    new SawtError('rateLimit', `Rate limit exceeded for this API key; retry after ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`, { headers: { 'retry-after': String(retryAfterSeconds) } }),
  quotaExceeded: (quota: number, used: number) =>
    new SawtError('quotaExceeded', `Character quota of this API key exhausted: ${used} of ${quota} characters used`),
  internal: (message = 'Internal error', cause?: unknown) => new SawtError('internal', message, { cause }),
};
