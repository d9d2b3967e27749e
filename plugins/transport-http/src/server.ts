import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { SawtError, presentedKey, writeRawHttpError, type AuthContext, type Authenticator, type EndpointScope, type HttpRouteSpec, type Logger, type RateLimiter } from '@sawt/core';
import { clientError, errorBody, frameworkError, toSawtError } from './errors.js';
import { API_PREFIX } from './openapi.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

export interface HttpOptions {
  bodyLimit: number;
  maxTextChars: number;
  shutdownGraceMs: number;
  maxUploadBytes: number;
  ffmpegPath: string;
  ffprobePath: string;
}

export function sendError(reply: FastifyReply, e: SawtError): FastifyReply {
  return reply.code(e.status).header('x-request-id', reply.request.id).headers(e.headers).type('application/json').send(errorBody(e));
}

/**
 * The fastify instance with Sawt's conventions: an x-request-id on every
 * response, JSON errors {errorCode, errorMessage} for everything including
 * malformed bodies, unknown paths and what fastify or Node refuse before a route
 * runs (bad URL encoding, over-long path parameters, malformed requests, oversized
 * headers), never echoing the request back; and 503 while shutting down.
 */
export function createFastify(opts: HttpOptions, logger: Logger, isClosing: () => boolean): FastifyInstance {
  const app = Fastify({
    logger: false,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: opts.bodyLimit,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
    // Refusals of the router (FST_ERR_BAD_URL, FST_ERR_MAX_PARAM_LENGTH…), before any hook runs.
    frameworkErrors: (err, req, reply) => {
      const e = frameworkError(err);
      logger.info({ requestId: req.id, errorCode: e.code, status: e.status, fastifyCode: (err as { code?: string }).code }, e.message);
      return sendError(reply, e);
    },
    // Node's HTTP parser refused the bytes (malformed request, headers too large, timeout): no request object exists.
    clientErrorHandler: (err, socket) => {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ECONNRESET' || socket.destroyed) return;
      const pending = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
      if (pending?.headersSent) {
        socket.destroy();
        return;
      }
      const e = clientError(code);
      const requestId = randomUUID();
      logger.info({ requestId, errorCode: e.code, status: e.status, parserCode: code }, e.message);
      writeRawHttpError(socket, e, requestId);
    },
  });

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (isClosing()) throw new SawtError('unavailable', 'Server is shutting down; retry shortly');
  });

  app.setErrorHandler((err, req, reply) => {
    const e = toSawtError(err, logger, req.id);
    if (e.status >= 500 && e.status !== 503) logger.error({ requestId: req.id, errorCode: e.code, err: e.cause ?? err }, e.message);
    else logger.info({ requestId: req.id, errorCode: e.code, status: e.status, method: req.method, url: req.url.split('?')[0] }, e.message);
    return sendError(reply, e);
  });

  // The path is not echoed back (it may carry anything a client typed); the method is one Node accepted.
  app.setNotFoundHandler((req, reply) => sendError(reply, new SawtError('notFound', `Endpoint not found: no ${req.method} endpoint at this path (see /api/v1/openapi.json)`)));

  return app;
}

export interface RouteDeps {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
}

/** A preHandler that authenticates, checks the key's endpoint scope and counts the request against its rate limit. */
export function requireScope(scope: EndpointScope, deps: RouteDeps) {
  return async (req: FastifyRequest) => {
    const auth = await deps.authenticator.authenticate(presentedKey(req.headers));
    deps.authenticator.authorize(auth, scope);
    await deps.rateLimiter.hit(auth.key.id);
    req.auth = auth;
  };
}

/** Registers a route under /api/v1 (or at the root for paths starting with //) and describes it for OpenAPI. */
export function apiRoute(
  app: FastifyInstance,
  describe: (r: HttpRouteSpec) => void,
  deps: RouteDeps,
  spec: HttpRouteSpec,
  handler: (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
): void {
  describe(spec);
  app.route({
    method: spec.method,
    url: API_PREFIX + spec.path,
    ...(spec.scope ? { preHandler: requireScope(spec.scope, deps) } : {}),
    handler,
  });
}

/** Absolute URL for a path served by this server, as the client reached it. */
export function absoluteUrl(req: FastifyRequest, path: string): string {
  const proto = (req.headers['x-forwarded-proto'] as string | undefined)?.split(',')[0]?.trim() || req.protocol;
  const host = (req.headers['x-forwarded-host'] as string | undefined) || req.headers.host || `${req.hostname}`;
  return `${proto}://${host}${path}`;
}
