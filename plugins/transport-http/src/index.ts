import { setTimeout as sleep } from 'node:timers/promises';
import { VOICE_AGES, VOICE_GENDERS, VOICE_TYPES, definePlugin, tokens, type HttpRouteSpec, type HttpServerService } from '@sawt/core';
import { buildOpenApi } from './openapi.js';
import { registerPlayground } from './playground.js';
import { registerRoot } from './root.js';
import { registerCatalogRoutes } from './routes/catalog.js';
import { registerTtsRoutes } from './routes/tts.js';
import { registerOpenAiRoutes } from './routes/openai.js';
import { registerVoiceRoutes } from './routes/voices.js';
import { registerDocs } from './docs.js';
import { MetricsEndpoint } from './metrics-endpoint.js';
import { pluginRoutes } from './plugin-routes.js';
import { absoluteUrl, createFastify } from './server.js';
import { capConnectionsPerAddress } from './connection-limits.js';
import { DEFAULT_CLONE_LIMITS, DEFAULT_OPENAI_MODELS, DEFAULT_OPENAI_VOICES, httpConfigSchema } from './options.js';
import type { FastifyRequest } from 'fastify';

const modelSchema = {
  type: 'object',
  required: ['id', 'model_id', 'model_name', 'default_voice_id'],
  properties: {
    id: { type: 'string', format: 'uuid' }, model_id: { type: 'string' }, model_name: { type: 'string' }, description: { type: 'string', nullable: true },
    default_voice_id: { type: 'string', nullable: true, description: 'The voice a client gets first for this model (one of GET /voices?model_id=); null when no voice speaks on it' },
  },
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

/** A voice as GET /voices lists it: with the models it speaks on. */
const listedVoiceSchema = {
  ...voiceSchema,
  required: [...voiceSchema.required, 'models'],
  properties: { ...voiceSchema.properties, models: { type: 'array', items: { type: 'string' }, description: 'model_ids the voice speaks on (GET /models); a cloned voice speaks on every model' } },
};

export { DEFAULT_CLONE_LIMITS } from './options.js';

export default definePlugin({
  id: 'transport-http',
  tags: ['transport'],
  scopes: [
    { name: 'models', description: 'GET /models: the models the account may use' },
    { name: 'voices', description: 'GET /voices: the voices the account may use' },
    { name: 'tts', description: 'POST /text-to-speech/{model_id}: speech from text' },
    { name: 'preview', description: 'POST /voices/preview: a voice previewed from an audio sample' },
    { name: 'openai', description: 'POST /v1/audio/speech and GET /v1/models: the OpenAI-compatible API at the server root' },
    { name: 'clone', description: 'POST /voices/clone and DELETE /voices/{voice_id}: the account\'s cloned voices' },
  ],
  provides: [tokens.httpServer],
  deps: {
    logger: tokens.logger, metrics: tokens.metrics, workDir: tokens.workDir, scopes: tokens.scopes, authenticator: tokens.authenticator, accounts: tokens.accounts, rateLimiter: tokens.rateLimiter,
    concurrency: tokens.concurrency, admission: tokens.admission, models: tokens.models, voices: tokens.voices, synthesizer: tokens.synthesizer, cloning: tokens.voiceCloning,
  },
  configSchema: httpConfigSchema,
  register(ctx, { logger, metrics, workDir, scopes, authenticator, accounts, rateLimiter, concurrency, admission, models, voices, synthesizer, cloning }) {
    let closing = false;
    const { app, stopLogging } = createFastify(ctx.options, ctx.logger, () => closing, metrics);
    const stopCapping = capConnectionsPerAddress(app, app.server, { max: ctx.options.maxConnectionsPerAddress, perRequest: ctx.options.trustProxy !== false }, concurrency, ctx.logger);
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
      authenticator, rateLimiter, models, voices, accounts, admission, synthesizer, metrics,
      // The paid path's and the routes' lines come from the server's logger, the plugin's own from ctx.logger.
      logger,
      maxTextChars: ctx.options.maxTextChars,
      output: { workDir, maxOutputSeconds: ctx.options.maxOutputSeconds },
      track: trackInFlight,
    };

    const publicOrigin = (req: unknown) => ctx.options.publicUrl?.replace(/\/+$/, '') ?? absoluteUrl(req as FastifyRequest, '');
    describe({
      method: 'GET', path: '//healthz', summary: 'Liveness: 200 once the server can serve (no API key)', scope: null,
      responses: { 200: { description: 'The server is up', content: { 'application/json': { schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } } } } } } },
    });
    app.get('/healthz', async () => ({ status: 'ok' }));
    if (ctx.options.playground) registerPlayground(app);
    registerRoot(app, { playground: ctx.options.playground, metrics: metricsEndpoint.onApiPort, origin: publicOrigin });
    app.get('/api/v1/openapi.json', async (req) => buildOpenApi(routes, { Model: modelSchema, Voice: listedVoiceSchema, ClonedVoice: clonedVoiceSchema }, publicOrigin(req)));
    registerDocs(app);
    registerCatalogRoutes(app, describe, { ...deps, cloning });
    registerTtsRoutes(app, describe, deps);
    registerOpenAiRoutes(app, describe, { ...deps, mapping: { models: { ...DEFAULT_OPENAI_MODELS, ...ctx.options.openai?.models }, voices: { ...DEFAULT_OPENAI_VOICES, ...ctx.options.openai?.voices } } });
    registerVoiceRoutes(app, describe, {
      ...deps, cloning, workDir, maxClonedVoices: { ...DEFAULT_CLONE_LIMITS, ...ctx.options.maxClonedVoices }, maxUploadBytes: ctx.options.maxUploadBytes, ffmpegPath: ctx.options.ffmpegPath, ffprobePath: ctx.options.ffprobePath,
    });

    const service: HttpServerService = {
      app,
      get server() {
        return app.server;
      },
      describe,
      route: pluginRoutes(app, describe, { ...deps, scopes, workDir, maxUploadBytes: ctx.options.maxUploadBytes }),
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
      // Every new request gets 503; work in flight (WebSocket pieces too) has shutdownGraceMs, then is cancelled.
      async stop() {
        closing = true;
        stopCapping();
        const graceEnds = Date.now() + ctx.options.shutdownGraceMs;
        await metricsEndpoint.close();
        if (inFlight.size) ctx.logger.info({ inFlight: inFlight.size }, 'waiting for in-flight requests');
        // Work that starts during the wait (a WebSocket's next queued piece) is waited for too, within the same grace.
        while (inFlight.size && Date.now() < graceEnds) await Promise.race([Promise.allSettled([...inFlight.keys()]), sleep(graceEnds - Date.now(), undefined, { ref: false })]);
        for (const cancel of inFlight.values()) cancel();
        await Promise.allSettled([...inFlight.keys()]);
        stopLogging();
        const closed = app.close();
        // Responses cut by the cancel end at once; a connection still open after a moment is closed.
        const late = setTimeout(() => app.server.closeAllConnections(), 1000);
        await closed;
        clearTimeout(late);
      },
    };
  },
});
