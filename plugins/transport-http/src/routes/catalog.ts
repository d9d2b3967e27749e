import type { FastifyInstance } from 'fastify';
import { DEFAULT_SAMPLE_RATE, encodeWav, errors, type HttpRouteSpec, type SpeechChunk, type ModelCatalog, type SpeechSynthesizer, type VoiceCatalog, type VoiceCloning } from '@sawt/core';
import { absoluteUrl, apiRoute, requireScope, type RouteDeps } from '../server.js';
import { errorResponses } from '../openapi.js';

const SAMPLE_TEXT = 'مرحبا، هذا صوتي. يسعدني أن أقرأ لك أي نص عربي بوضوح.';

export function registerCatalogRoutes(
  app: FastifyInstance,
  describe: (r: HttpRouteSpec) => void,
  deps: RouteDeps & { models: ModelCatalog; voices: VoiceCatalog; synthesizer: SpeechSynthesizer; cloning?: VoiceCloning },
): void {
  apiRoute(app, describe, deps, {
    method: 'GET', path: '/models', summary: 'List the available synthesis models', scope: 'models',
    responses: {
      200: { description: 'Models', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Model' } } } } },
      ...errorResponses('authentication', 'endpointNotAllowed', 'rateLimit'),
    },
  }, async () =>
    deps.models.list().filter((m) => m.available).map((m) => ({ id: m.id, model_id: m.model_id, model_name: m.model_name, description: m.description, default_voice_id: m.default_voice_id ?? null })),
  );

  apiRoute(app, describe, deps, {
    method: 'GET', path: '/voices', summary: 'List the voices this account can use, each with the models it speaks on; ?model_id= keeps the voices of one model', scope: 'voices',
    parameters: [{ name: 'model_id', in: 'query', required: false, description: 'Only the voices that speak on this model (an unknown model is 404 / 40401)', schema: { type: 'string' } }],
    responses: {
      200: { description: 'Voices', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Voice' } } } } },
      ...errorResponses('authentication', 'endpointNotAllowed', 'notFound', 'rateLimit'),
    },
  }, async (req) => {
    const offered = deps.models.list().filter((m) => m.available).map((m) => m.model_id);
    const query = (req.query ?? {}) as { model_id?: unknown };
    const modelId = query.model_id === undefined ? undefined : String(query.model_id);
    if (modelId !== undefined && !offered.includes(modelId)) throw errors.modelNotFound(modelId);
    const voices = (await deps.voices.list(req.auth!.account.id))
      // A voice without a list of its own (a cloned voice) speaks on every offered model.
      .map((v) => ({ ...v, models: v.models ? v.models.filter((id) => offered.includes(id)) : offered }))
      .filter((v) => modelId === undefined || v.models.includes(modelId));
    return voices.map((v) => ({ ...v, sample_url: v.sample_url.startsWith('/') ? absoluteUrl(req, v.sample_url) : v.sample_url }));
  });

  // Built-in samples are public (an <audio> element cannot send a key) and generated once per voice.
  const samples = new Map<string, Promise<Buffer>>();
  apiRoute(app, describe, deps, {
    method: 'GET', path: '/voices/:voice_id/sample', summary: "A short WAV sample of a voice: built-in voices need no key; a cloned voice's sample needs its owner's key (others get 404)", scope: null,
    parameters: [{ name: 'voice_id', in: 'path', required: true, schema: { type: 'string' } }],
    responses: { 200: { description: 'WAV sample', content: { 'audio/wav': {} } }, ...errorResponses('authentication', 'endpointNotAllowed', 'notFound', 'rateLimit') },
  }, async (req, reply) => {
    const { voice_id } = req.params as { voice_id: string };
    if (deps.cloning?.isCloneId(voice_id)) {
      // A cloned voice's sample is its owner's: the owner's key is needed, and no shared cache keeps it.
      await requireScope('voices', deps)(req);
      const cloned = await deps.cloning.sampleWav(voice_id, req.auth!.account.id);
      if (!cloned) throw errors.voiceNotFound(voice_id);
      return reply.type('audio/wav').header('cache-control', 'private, no-store').send(cloned);
    }
    // A voice that works with some models only is sampled with one of them (the first available).
    const defaultId = deps.models.defaultModelId();
    const own = deps.voices.modelsFor?.(voice_id);
    const modelId = !own?.length || own.includes(defaultId) ? defaultId : (own.find((id) => deps.models.get(id)?.available) ?? own[0]!);
    let wav = samples.get(voice_id);
    if (!wav) {
      wav = (async () => {
        const stream = await deps.synthesizer.synthesize({ modelId, voiceId: voice_id, accountId: '', text: SAMPLE_TEXT, speed: 1, stability: 0.5 });
        const chunks = await stream.toArray() as SpeechChunk[];
        return encodeWav(chunks.map((c) => c.pcm), chunks[0]?.sampleRate ?? DEFAULT_SAMPLE_RATE);
      })();
      samples.set(voice_id, wav);
      wav.catch(() => samples.delete(voice_id));
    }
    const body = await wav.catch((e: { code?: number }) => {
      throw e.code === 40401 ? errors.voiceNotFound(voice_id) : e;
    });
    return reply.type('audio/wav').header('cache-control', 'public, max-age=86400').send(body);
  });
}
