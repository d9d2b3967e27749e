import type { ServerResponse } from 'node:http';
import { LogSampler, type Logger, type Metrics, type SawtError } from '@sawt/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The error the request was answered with (its log line's errorCode and message). */
    refusal: SawtError | null;
  }
}

/** Status label of a response the client left before it finished (nginx's convention). */
const CLIENT_CLOSED = 499;

/**
 * One log line (never the key) and one metrics observation per HTTP request, when its response ends
 * or the client leaves. Levels: 5xx error, 4xx info, the rest debug; repeated 429s of one key or address are sampled.
 */
export function instrumentRequests(app: FastifyInstance, logger: Logger, metrics: Metrics, sampler = new LogSampler()): { stop(): void } {
  app.decorateRequest('refusal', null);
  app.addHook('onRequest', async (req, reply) => {
    const started = performance.now();
    reply.raw.once('close', () => done(req, reply.raw, (performance.now() - started) / 1000));
  });

  const done = (req: FastifyRequest, res: ServerResponse, seconds: number) => {
    const status = res.writableFinished || (res.writableEnded && res.writableLength === 0) ? res.statusCode : CLIENT_CLOSED;
    const route = req.routeOptions?.url ?? '(unmatched)';
    metrics.observeRequest({ method: req.method, route, status, seconds });
    const refusal = req.refusal;
    if (refusal) metrics.countRefusal(refusal.code, 'http');
    const line = {
      requestId: req.id, accountId: req.auth?.account.id ?? null, keyId: req.auth?.key.id ?? null,
      method: req.method, route, status, ms: Math.round(seconds * 1000),
      ...(refusal ? { errorCode: refusal.code } : {}),
    };
    const msg = refusal?.message ?? 'request completed';
    if (status >= 500) return logger.error(line, msg);
    if (status === 429) {
      const suppressed = sampler.take(`${line.keyId ?? req.ip}:${refusal?.code ?? 429}`);
      if (suppressed === null) return;
      return logger.info(suppressed ? { ...line, suppressedSince: suppressed } : line, msg);
    }
    if (status >= 400) return logger.info(line, msg);
    logger.debug(line, msg);
  };

  // A flood's tail: how many 429 lines were left out, once its window is over.
  const timer = setInterval(() => {
    for (const { key, suppressed } of sampler.flush()) logger.info({ sampleKey: key, suppressed }, 'repeated 429 refusals not logged one by one');
  }, 10_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
