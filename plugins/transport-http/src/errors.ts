import { SawtError, errors, isSawtError, type Logger } from '@sawt/core';

/** Maps anything thrown in a request to the SawtError the client sees. */
export function toSawtError(err: unknown, logger: Logger, requestId: string): SawtError {
  if (isSawtError(err)) return err;
  const e = err as { statusCode?: number; code?: string; message?: string };
  const status = e?.statusCode;
  if (status === 413 || e?.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errors.validation('Payload too large');
  if (status === 415 || e?.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return errors.validation('Unsupported Content-Type: send application/json');
  if (e?.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return errors.validation('Request body is empty: send a JSON object');
  if (e?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || (err instanceof SyntaxError && status === 400)) return errors.validation('Request body is not valid JSON');
  if (status === 404) return new SawtError('notFound', e.message ?? 'Not found');
  if (status !== undefined && status >= 400 && status < 500) return errors.validation(e.message ?? 'Bad request');
  logger.error({ err, requestId }, 'request failed');
  return errors.internal('Internal error');
}

export function errorBody(e: SawtError): { errorCode: number; errorMessage: string } {
  return { errorCode: e.code, errorMessage: e.message };
}
