import type { FromSchema } from '@sawt/core';
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

export const corsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    // Origins allowed to call the API from a browser ("https://app.example.com"), or ["*"] for any. Empty: CORS off.
    origins: { type: 'array', items: { type: 'string', pattern: '^(\\*|https?://[^/\\s]+)$' }, default: [] },
    // How long a browser may cache a preflight answer.
    maxAgeSeconds: { type: 'integer', minimum: 0, default: 600 },
  },
  default: {},
} as const;

export type CorsOptions = FromSchema<typeof corsSchema>;

/**
 * Cross-origin access for browser pages on the allowed origins: the allow headers on every answer (errors
 * included), preflights answered 204 before routing; other origins get 204 without them (a refusal to browsers).
 */
export function registerCors(app: FastifyInstance, opts: CorsOptions | undefined): void {
  const origins = new Set((opts?.origins ?? []).map((o) => o.replace(/\/+$/, '').toLowerCase()));
  if (origins.size === 0) return;
  const allowed = (origin: string | undefined) => origin !== undefined && (origins.has('*') ? '*' : origins.has(origin.toLowerCase()));
  const base = {
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: ['content-type', 'x-api-key', 'authorization'],
    // What a page may read from an answer: the request id to quote, Retry-After on 429, the size of a WAV.
    exposedHeaders: ['x-request-id', 'retry-after', 'content-length', 'x-sawt-speed-applied', 'x-sawt-model', 'x-sawt-voice'],
    maxAge: opts?.maxAgeSeconds ?? 600,
  };
  const preflight = (req: FastifyRequest) => req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
  // Per request: an OPTIONS without Access-Control-Request-Method is not a preflight and is routed as any request.
  void app.register(cors, {
    delegator: (req, cb) => cb(null, { ...base, origin: allowed(req.headers.origin), preflight: preflight(req) }),
  });
  // @fastify/cors leaves an unlisted origin's preflight to the router (404): answer it as before, 204 without allow headers.
  app.addHook('onRequest', async (req, reply) => {
    if (preflight(req) && typeof req.headers.origin === 'string' && !allowed(req.headers.origin)) return reply.code(204).header('vary', 'Origin').header('content-length', '0').send();
  });
}
