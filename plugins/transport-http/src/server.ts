import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { SawtError, errors, presentedKey, writeRawHttpError, type AuthContext, type Authenticator, type EndpointScope, type HttpRouteSpec, type Logger, type Metrics, type RateLimiter } from '@sawt/core';
import { registerCors } from './cors.js';
import { enforceMinBodyRate } from './connection-limits.js';
import { FASTIFY_MESSAGES, PROTO_KEY_MESSAGE, clientError, errorBody, frameworkError, toSawtError } from './errors.js';
import { API_PREFIX } from './openapi.js';
import type { HttpOptions } from './options.js';
import { instrumentRequests } from './request-log.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
  }
}

/** The error handler of a scope of routes: `body` shapes the error. */
export function errorHandler(logger: Logger, body?: (e: SawtError) => unknown) {
  return (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const e = toSawtError(err, logger, req.id);
    // The request's own line (request-log.ts) records every refusal; a server failure also gets its cause here.
    if (e.status >= 500 && e.status !== 503) logger.error({ requestId: req.id, accountId: req.auth?.account.id ?? null, keyId: req.auth?.key.id ?? null, errorCode: e.code, err: e.cause ?? err }, e.message);
    return sendError(reply, e, body);
  };
}

export function sendError(reply: FastifyReply, e: SawtError, body: (e: SawtError) => unknown = errorBody): FastifyReply {
  reply.request.refusal = e;
  return reply.code(e.status).header('x-request-id', reply.request.id).headers(e.headers).type('application/json').send(body(e));
}

/**
 * The fastify instance with Sawt's conventions: an x-request-id on every response, JSON errors for
 * everything, including what fastify or Node refuse before a route runs, never echoing the request back.
 */
export function createFastify(opts: HttpOptions, logger: Logger, isClosing: () => boolean, metrics: Metrics): { app: FastifyInstance; stopLogging(): void } {
  const app = Fastify({
    logger: false,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: opts.bodyLimit,
    trustProxy: opts.trustProxy,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Headers must arrive within headersTimeoutMs (Node's default is a minute, checked every 30 s);
    // bodies are held to a minimum rate instead of a total time (enforceMinBodyRate), so a large
    // upload on a slow but steady link passes.
    serverFactory: (handler) => createServer({ headersTimeout: opts.headersTimeoutMs, requestTimeout: 0, connectionsCheckingInterval: Math.min(1000, opts.headersTimeoutMs) }, handler),
    routerOptions: { ignoreTrailingSlash: true },
    // Refusals of the router (FST_ERR_BAD_URL, FST_ERR_MAX_PARAM_LENGTH…), before any hook runs.
    frameworkErrors: (err, req, reply) => {
      const e = frameworkError(err);
      logger.info({ requestId: req.id, accountId: null, keyId: null, errorCode: e.code, status: e.status, fastifyCode: (err as { code?: string }).code }, e.message);
      metrics.countRefusal(e.code, 'http');
      metrics.observeRequest({ method: req.method, route: '(unmatched)', status: e.status, seconds: 0 });
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
      logger.info({ requestId, accountId: null, keyId: null, errorCode: e.code, status: e.status, parserCode: code }, e.message);
      metrics.countRefusal(e.code, 'http');
      writeRawHttpError(socket, e, requestId);
    },
  });

  // Before the other hooks, so that every answer, a refusal included, carries the CORS headers.
  registerCors(app, opts.cors);
  const requestLog = instrumentRequests(app, logger, metrics);
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    if (isClosing()) {
      // A load balancer takes the node out (healthz answers this too) and the client reconnects elsewhere.
      reply.header('connection', 'close');
      throw new SawtError('unavailable', 'Server is shutting down; retry shortly');
    }
  });

  // As fastify parses JSON, but a "__proto__" key is refused by name (fastify drops the reason), and a
  // DELETE or GET with a JSON content type and no body is served (clients set the header on every request).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = String(body);
    if (text === '' && (req.method === 'DELETE' || req.method === 'GET')) return done(null, undefined);
    if (text === '') return done(errors.validation(FASTIFY_MESSAGES.FST_ERR_CTP_EMPTY_JSON_BODY!), undefined);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return done(errors.validation(FASTIFY_MESSAGES.FST_ERR_CTP_INVALID_JSON_BODY!), undefined);
    }
    if (hasPrototypeKey(json)) return done(errors.validation(PROTO_KEY_MESSAGE), undefined);
    done(null, json);
  });

  enforceMinBodyRate(app, opts.minBodyRate, (req, e) => {
    logger.info({ requestId: req.id, accountId: null, keyId: null, errorCode: e.code, status: e.status }, e.message);
    metrics.countRefusal(e.code, 'http');
  });

  app.setErrorHandler(errorHandler(logger));

  // The path is not echoed back (it may carry anything a client typed); the method is one Node accepted.
  app.setNotFoundHandler((req, reply) => sendError(reply, new SawtError('notFound', `Endpoint not found: no ${req.method} endpoint at this path (see /api/v1/openapi.json)`)));

  return { app, stopLogging: requestLog.stop };
}

/** Whether parsed JSON holds, at any depth, an own "__proto__" key or a "constructor" object with "prototype". */
function hasPrototypeKey(value: unknown): boolean {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (Object.prototype.hasOwnProperty.call(v, '__proto__')) return true;
    const ctor = (v as { constructor?: unknown }).constructor;
    if (Object.prototype.hasOwnProperty.call(v, 'constructor') && ctor !== null && typeof ctor === 'object' && Object.prototype.hasOwnProperty.call(ctor, 'prototype')) return true;
    for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k]);
  }
  return false;
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

/** host[:port] with a DNS name, IPv4 or bracketed IPv6 host and a valid port; nothing else. */
const HOST_SYNTAX = /^(?:\[[0-9a-f:.]{2,45}\]|[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9_])?)(?::(\d{1,5}))?$/i;

function validHost(value: string | undefined): string | null {
  if (typeof value !== 'string' || value.length > 261) return null;
  const m = HOST_SYNTAX.exec(value.trim());
  if (!m || (m[1] !== undefined && Number(m[1]) > 65535)) return null;
  return value.trim().toLowerCase();
}

/**
 * Absolute URL for a path served by this server, as the client reached it: forwarded scheme and host
 * only from a trusted proxy (req.protocol / req.host), and only when they are well-formed.
 */
export function absoluteUrl(req: FastifyRequest, path: string): string {
  const own = (req.raw.socket as { encrypted?: boolean } | null)?.encrypted ? 'https' : 'http';
  const claimed = String(req.protocol ?? '').toLowerCase();
  const proto = claimed === 'http' || claimed === 'https' ? claimed : own;
  const socket = req.raw.socket;
  const local = socket?.localAddress ? `${socket.localAddress.includes(':') ? `[${socket.localAddress}]` : socket.localAddress}:${socket.localPort}` : 'localhost';
  const host = validHost(req.host) ?? validHost(req.headers.host) ?? local;
  return `${proto}://${host}${path}`;
}
