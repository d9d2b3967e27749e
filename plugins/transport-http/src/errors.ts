import { SawtError, errors, isSawtError, type Logger } from '@sawt/core';

/** Fixed messages for what fastify refuses, so nothing of the request is echoed back. */
export const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty: send a JSON object',
  FST_ERR_CTP_INVALID_JSON_BODY: 'Request body is not valid JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Request body size did not match Content-Length',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type: send application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Payload too large',
  FST_ERR_BAD_URL: 'The URL is not valid: a path segment is not valid percent-encoded UTF-8',
};

/** A JSON body holding a key that could alter the prototype of objects on the server (server.ts's JSON parser). */
export const PROTO_KEY_MESSAGE = 'Request body contains a "__proto__" key (or a "constructor" object with "prototype"), which is not accepted: remove it';

/** Maps anything thrown in a request to the SawtError the client sees. */
export function toSawtError(err: unknown, logger: Logger, requestId: string): SawtError {
  if (isSawtError(err)) return err;
  const e = err as { statusCode?: number; code?: string; message?: string };
  const status = e?.statusCode;
  const fixed = e?.code ? FASTIFY_MESSAGES[e.code] : undefined;
  if (status === 413) return errors.validation(FASTIFY_MESSAGES.FST_ERR_CTP_BODY_TOO_LARGE!);
  if (status === 415) return errors.validation(FASTIFY_MESSAGES.FST_ERR_CTP_INVALID_MEDIA_TYPE!);
  if (fixed) return errors.validation(fixed);
  if (err instanceof SyntaxError && status === 400) return errors.validation(FASTIFY_MESSAGES.FST_ERR_CTP_INVALID_JSON_BODY!);
  if (status === 404) return new SawtError('notFound', 'Not found');
  if (status !== undefined && status >= 400 && status < 500) {
    logger.info({ requestId, code: e.code, message: e.message }, 'request refused by the framework');
    return errors.validation(`Bad request${e.code ? ` (${e.code})` : ''}`);
  }
  logger.error({ err, requestId }, 'request failed');
  return errors.internal('Internal error');
}

/** The router's refusals (fastify frameworkErrors). */
export function frameworkError(err: unknown): SawtError {
  const code = (err as { code?: string })?.code;
  if (code === 'FST_ERR_MAX_PARAM_LENGTH') return new SawtError('uriTooLong', 'The URL is too long: a path parameter has more than 100 characters');
  if (code === 'FST_ERR_BAD_URL') return errors.validation(FASTIFY_MESSAGES.FST_ERR_BAD_URL!);
  return errors.validation(`Bad request${code ? ` (${code})` : ''}`);
}

/** What Node's HTTP parser refused (clientError), by its error code. */
export function clientError(code: string | undefined): SawtError {
  if (code === 'HPE_HEADER_OVERFLOW') return new SawtError('headersTooLarge', 'Request headers are too large');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT' || code === 'ERR_HTTP_HEADERS_TIMEOUT') return new SawtError('requestTimeout', 'The request did not arrive in time');
  if (code === 'HPE_URI_TOO_LONG') return new SawtError('uriTooLong', 'The URL is too long');
  return errors.validation('Malformed HTTP request');
}

export function errorBody(e: SawtError): { errorCode: number; errorMessage: string } {
  return { errorCode: e.code, errorMessage: e.message };
}
