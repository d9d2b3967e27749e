import type { FromSchema } from '@sawt/core';
import type { FastifyInstance } from 'fastify';

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

const ALLOWED_HEADERS = 'content-type, x-api-key, authorization';
// What a page may read from an answer: the request id to quote, Retry-After on 429, the size of a WAV.
const EXPOSED_HEADERS = 'x-request-id, retry-after, content-length, x-sawt-speed-applied, x-sawt-model, x-sawt-voice';

/**
 * Cross-origin access for browser pages on the allowed origins: the allow headers
 * on every answer (errors included, so a page can read errorCode), and preflight
 * OPTIONS answered 204 before routing. Other origins get no CORS headers, which
 * browsers treat as a refusal; requests without Origin are unaffected.
 */
export function registerCors(app: FastifyInstance, opts: CorsOptions | undefined): void {
  const origins = new Set((opts?.origins ?? []).map((o) => o.replace(/\/+$/, '').toLowerCase()));
  if (origins.size === 0) return;
  const any = origins.has('*');
  const maxAge = String(opts?.maxAgeSeconds ?? 600);
  app.addHook('onRequest', async (req, reply) => {
    const origin = req.headers.origin;
    if (typeof origin !== 'string') return;
    const allowed = any || origins.has(origin.toLowerCase());
    // On the Node response itself: audio answers are written there directly (hijacked), past fastify's headers.
    const set = (name: string, value: string) => reply.raw.setHeader(name, value);
    set('vary', 'Origin');
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (allowed) {
      set('access-control-allow-origin', any ? '*' : origin);
      set('access-control-expose-headers', EXPOSED_HEADERS);
    }
    if (!preflight) return;
    if (allowed) {
      set('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
      set('access-control-allow-headers', ALLOWED_HEADERS);
      set('access-control-max-age', maxAge);
    }
    return reply.code(204).send();
  });
}
