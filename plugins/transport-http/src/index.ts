import { setTimeout as sleep } from 'node:timers/promises';
import { PLANS, VOICE_AGES, VOICE_GENDERS, VOICE_TYPES, definePlugin, paidSynthesisServices, tokens, type HttpRouteSpec, type HttpServerService, type Plan } from '@sawt/core';
import { corsSchema } from './cors.js';
import { buildOpenApi } from './openapi.js';
import { registerPlayground } from './playground.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { registerTtsRoutes } from './routes/tts.js';
import { registerVoiceRoutes } from './routes/voices.js';
import { registerDocs } from './docs.js';
import { MetricsEndpoint } from './metrics-endpoint.js';
import { pluginRoutes } from './plugin-routes.js';
import { absoluteUrl, createFastify, type HttpOptions } from './server.js';
import type { FastifyRequest } from 'fastify';

const modelSchema = {
  type: 'object',
  required: ['id', 'model_id', 'model_name'],
  properties: { id: { type: 'string', format: 'uuid' }, model_id: { type: 'string' }, model_name: { type: 'string' }, description: { type: 'string', nullable: true } },
};
const voiceSchema = {
  type: 'object',
  required: ['voice_id', 'name', 'languages', 'dialect', 'sample_url'],
  properties: {
    voice_id: { type: 'string' }, name: { type: 'string' }, description: { type: 'string', nullable: true },
    gender: { type: 'string', nullable: true, enum: [...VOICE_GENDERS, null] }, age: { type: 'string', nullable: true, enum: [...VOICE_AGES, null] },
    languages: { type: 'array', items: { type: 'string' } }, dialect: { type: 'array', items: { type: 'string' } },
    type: { type: 'string', nullable: true, enum: [...VOICE_TYPES, null] }, sample_url: { type: 'string', format: 'uri' },
  },
};

const clonedVoiceSchema = {
  ...voiceSchema,
  required: ['id', ...voiceSchema.required, 'stability'],
  properties: { id: { type: 'string', format: 'uuid' }, ...voiceSchema.properties, avatar_url: { type: 'string', nullable: true }, stability: { type: 'number' } },
};

/** Cloned voices an account may hold, by plan (option maxClonedVoices). */
export const DEFAULT_CLONE_LIMITS: Record<Plan, number | null> = { free: 3, basic: 10, starter: 25, growth: 50, scale: 100, enterprise: null };

export { docsSize } from './docs.js';

export default definePlugin<HttpOptions>({
  id: 'transport-http',
  tags: ['transport'],
  scopes: [
    { name: 'models', description: 'GET /models: the models the account may use' },
    { name: 'voices', description: 'GET /voices: the voices the account may use' },
    { name: 'tts', description: 'POST /text-to-speech/{model_id}: speech from text' },
    { name: 'preview', description: 'POST /voices/preview: a voice previewed from an audio sample' },
    { name: 'clone', description: 'POST /voices/clone and DELETE /voices/{voice_id}: the account\'s cloned voices' },
  ],
  provides: [tokens.httpServer],
  consumes: [tokens.logger, tokens.runtime, tokens.metrics, tokens.workDir, tokens.authenticator, tokens.accounts, tokens.rateLimiter, tokens.admission, tokens.models, tokens.voices, tokens.synthesizer, tokens.voiceCloning],
  configSchema: {
    type: 'object',
    properties: {
      bodyLimit: { type: 'integer', minimum: 1024, default: 1048576 },
      maxTextChars: { type: 'integer', minimum: 10, default: 5000 },
      maxOutputSeconds: { type: 'number', exclusiveMinimum: 0, default: 900, description: 'Longest audio one text-to-speech or preview request may produce; longer: 400 (40001) naming the limit' },
      shutdownGraceMs: { type: 'integer', minimum: 0, default: 10000 },
      maxUploadBytes: { type: 'integer', minimum: 1024, default: 104857600 },
      ffmpegPath: { type: 'string', default: 'ffmpeg' },
      ffprobePath: { type: 'string', default: 'ffprobe' },
      maxClonedVoices: {
        type: 'object',
        description: 'Cloned voices an account of each plan may hold (null: no limit); cloning past it gives 400 (40001)',
        properties: Object.fromEntries(PLANS.map((p) => [p, { type: ['integer', 'null'], minimum: 0 }])),
        additionalProperties: false,
        default: DEFAULT_CLONE_LIMITS,
      },
      trustProxy: {
        anyOf: [{ type: 'boolean' }, { type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }],
        default: false,
      },
      cors: corsSchema,
      playground: { type: 'boolean', default: true },
      publicUrl: {
        type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#]+(/[^?#]*)?$',
        description: 'The absolute URL clients reach the server at (e.g. https://api.example.com, or https://example.com/sawt behind a proxy): the server URL of the OpenAPI and AsyncAPI documents. Default: as each client reached it.',
      },
      metrics: {
        type: 'object',
        additionalProperties: false,
        default: {},
        description: 'GET /metrics (Prometheus text format): on the API port, or on a port of its own (e.g. bound to a private address).',
        properties: {
          enabled: { type: 'boolean', default: true },
          port: { type: ['integer', 'null'], minimum: 0, maximum: 65535, default: null },
          host: { type: ['string', 'null'], minLength: 1, default: null },
        },
      },
    },
  },
  register(ctx) {
    let closing = false;
    const metrics = ctx.get(tokens.metrics);
    const { app, stopLogging } = createFastify(ctx.options, ctx.logger, () => closing, metrics);
    const metricsEndpoint = new MetricsEndpoint(metrics, ctx.options.metrics);
    if (metricsEndpoint.onApiPort) app.get('/metrics', (_req, reply) => metricsEndpoint.answer(reply));
    const routes: HttpRouteSpec[] = [];
    const describe = (r: HttpRouteSpec) => void routes.push(r);
    const inFlight = new Map<Promise<unknown>, () => void>();
    metrics.addGauge({ name: 'sawt_http_work_in_flight', help: 'Audio and denoise responses being produced (what shutdown waits for).', read: () => inFlight.size });
    const trackInFlight = <T>(work: Promise<T>, cancel: () => void): Promise<T> => {
      inFlight.set(work, cancel);
      work.finally(() => inFlight.delete(work)).catch(() => {});
      return work;
    };
    const deps = {
      logger: ctx.logger,
      authenticator: ctx.get(tokens.authenticator),
      rateLimiter: ctx.get(tokens.rateLimiter),
      ...paidSynthesisServices(ctx.get),
      maxTextChars: ctx.options.maxTextChars,
      output: { workDir: ctx.get(tokens.workDir), maxOutputSeconds: ctx.options.maxOutputSeconds },
      track: trackInFlight,
    };

    const publicOrigin = (req: unknown) => ctx.options.publicUrl?.replace(/\/+$/, '') ?? absoluteUrl(req as FastifyRequest, '');
    describe({
      method: 'GET', path: '//healthz', summary: 'Liveness: 200 once the server can serve (no API key)', scope: null,
      responses: { 200: { description: 'The server is up', content: { 'application/json': { schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } } } } } } },
    });
    app.get('/healthz', async () => ({ status: 'ok' }));
    if (ctx.options.playground) registerPlayground(app);
    app.get('/api/v1/openapi.json', async (req) => buildOpenApi(routes, { Model: modelSchema, Voice: voiceSchema, ClonedVoice: clonedVoiceSchema }, publicOrigin(req)));
    registerDocs(app);
    registerCatalogRoutes(app, describe, { ...deps, cloning: ctx.get(tokens.voiceCloning) });
    registerTtsRoutes(app, describe, deps);
    registerVoiceRoutes(app, describe, {
      ...deps, cloning: ctx.get(tokens.voiceCloning), workDir: ctx.get(tokens.workDir), maxClonedVoices: { ...DEFAULT_CLONE_LIMITS, ...ctx.options.maxClonedVoices }, maxUploadBytes: ctx.options.maxUploadBytes, ffmpegPath: ctx.options.ffmpegPath, ffprobePath: ctx.options.ffprobePath,
    });

    const service: HttpServerService = {
      app,
      get server() {
        return app.server;
      },
      describe,
      route: pluginRoutes(app, describe, { ...deps, scopes: ctx.get(tokens.scopes), workDir: ctx.get(tokens.workDir), maxUploadBytes: ctx.options.maxUploadBytes }),
      trackInFlight,
      publicOrigin,
    };
    ctx.provide(tokens.httpServer, service);

    return {
      async start() {
        const address = await app.listen({ host: ctx.runtime.host, port: ctx.runtime.port });
        ctx.logger.info({ address }, 'Sawt HTTP API listening');
        const metricsAddress = await metricsEndpoint.listen(ctx.runtime.host);
        if (metricsAddress) ctx.logger.info({ address: metricsAddress }, 'metrics listening');
      },
      async stop() {
        closing = true;
        stopLogging();
        await metricsEndpoint.close();
        const pending = [...inFlight.keys()];
        if (pending.length) {
          ctx.logger.info({ inFlight: pending.length }, 'waiting for in-flight requests');
          await Promise.race([Promise.allSettled(pending), sleep(ctx.options.shutdownGraceMs)]);
          for (const cancel of inFlight.values()) cancel();
          await Promise.allSettled([...inFlight.keys()]);
        }
        await app.close();
      },
    };
  },
});
