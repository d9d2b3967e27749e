import type { ErrorCode } from './generated/api-types.js';

/**
 * An error answered by the Sawt service: `errorCode` (e.g. 40101), the HTTP `status` (on the WebSocket, its code's)
 * and the server's message. Subclasses name the type: `if (e instanceof InsufficientBalanceError)`.
 */
export class SawtError extends Error {
  override name = 'SawtError';
  constructor(
    message: string,
    /** The service's numeric code (`40001`, `40101`…); 0 when no answer came (network failure). */
    readonly errorCode: ErrorCode | 0,
    /** HTTP status; 0 when no answer came. */
    readonly status: number,
    /** The server's x-request-id, to quote when reporting a problem. */
    readonly requestId?: string,
    /** Seconds the server asked to wait before retrying (Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class ValidationError extends SawtError { override name = 'ValidationError'; }
export class AuthenticationError extends SawtError { override name = 'AuthenticationError'; }
export class InsufficientBalanceError extends SawtError { override name = 'InsufficientBalanceError'; }
/** 40301 (model not enabled for the account) and 40302 (key restricted to other endpoints). */
export class AccessError extends SawtError { override name = 'AccessError'; }
export class NotFoundError extends SawtError { override name = 'NotFoundError'; }
/** 42901 (plan's concurrency), 42902 (rate limit; has retryAfterSeconds), 42903 (key's quota). */
export class RateLimitError extends SawtError { override name = 'RateLimitError'; }
export class ServerError extends SawtError { override name = 'ServerError'; }
/** No answer: the connection failed, was refused, or was aborted. */
export class ConnectionError extends SawtError { override name = 'ConnectionError'; }
/** The WebSocket closed before its work was done; `closeCode` and `closeReason` say how. */
export class WebSocketClosedError extends SawtError {
  override name = 'WebSocketClosedError';
  constructor(readonly closeCode: number, readonly closeReason: string) {
    super(`WebSocket closed (${closeCode}${closeReason ? `: ${closeReason}` : ''})`, 0, 0);
  }
}

const TYPE_OF_STATUS: Record<number, typeof SawtError> = {
  400: ValidationError, 401: AuthenticationError, 402: InsufficientBalanceError, 403: AccessError, 404: NotFoundError, 429: RateLimitError,
};

/** The error class for a code (or, when the body had none, for the status). */
export function errorFor(errorCode: number, status: number, message: string, requestId?: string, retryAfterSeconds?: number): SawtError {
  // A code's first three digits are its status (40101: 401).
  const s = status || Math.floor(errorCode / 100);
  const Type = TYPE_OF_STATUS[s] ?? (s >= 500 ? ServerError : SawtError);
  return new Type(message, errorCode as ErrorCode, s, requestId, retryAfterSeconds);
}

/** Builds the error for a non-2xx response from its `{errorCode, errorMessage}` body (code as number or string). */
export async function errorFromResponse(res: Response): Promise<SawtError> {
  const text = await res.text().catch(() => '');
  let code = 0;
  let message = text.slice(0, 500) || `HTTP ${res.status}`;
  try {
    const body = JSON.parse(text) as { errorCode?: number | string; errorMessage?: string; message?: string };
    code = Number(body.errorCode) || 0;
    message = body.errorMessage ?? body.message ?? message;
  } catch {
    // Not JSON (a proxy's page): the text itself is the message.
  }
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
  return errorFor(code, res.status, message, res.headers.get('x-request-id') ?? undefined, retryAfter);
}

/** Retry-After as seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
