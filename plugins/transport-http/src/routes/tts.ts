import type { FastifyInstance } from 'fastify';
import { startPaidSynthesis, validateFields, type HttpRouteSpec, type Logger, type PaidSynthesisServices } from '@sawt/core';
import { sendSynthesis, type OutputLimits } from '../audio-response.js';
import { errorResponses, jsonBody } from '../openapi.js';
import { ttsFields } from '../request-fields.js';
import { apiRoute, type RouteDeps } from '../server.js';

export function registerTtsRoutes(
  app: FastifyInstance,
  describe: (r: HttpRouteSpec) => void,
  deps: RouteDeps & PaidSynthesisServices & { logger: Logger; maxTextChars: number; output: OutputLimits; track: <T>(p: Promise<T>, cancel: () => void) => Promise<T> },
): void {
  const fields = ttsFields(deps.maxTextChars);
  apiRoute(app, describe, deps, {
    method: 'POST', path: '/text-to-speech/:model_id', summary: 'Convert text to speech (WAV, or streamed raw PCM16 24 kHz mono)', scope: 'tts',
    parameters: [{ name: 'model_id', in: 'path', required: true, schema: { type: 'string' }, description: 'Model to use (from GET /models)' }],
    requestBody: jsonBody(fields),
    responses: {
      200: {
        description: 'Audio. streaming=true: raw PCM16LE mono 24000 Hz sent as generated; streaming=false: a complete WAV file with Content-Length.',
        content: { 'audio/raw;codec=pcm16;rate=24000;channels=1': {}, 'audio/wav': {} },
      },
      ...errorResponses('validation', 'authentication', 'insufficientBalance', 'modelAccess', 'endpointNotAllowed', 'notFound', 'concurrency', 'rateLimit', 'quotaExceeded', 'internal'),
    },
  }, async (req, reply) => {
    const { model_id } = req.params as { model_id: string };
    const body = validateFields(req.body, fields);
    const run = await startPaidSynthesis(deps, {
      auth: req.auth!, requestId: req.id, modelId: model_id, voiceId: body.voice_id, text: body.text,
      speed: body.speed, stability: body.stability, purpose: 'tts http', transport: 'http', startedAt: performance.now() - reply.elapsedTime,
      maxOutputSeconds: deps.output.maxOutputSeconds,
    });
    await deps.track(sendSynthesis(req, reply, { stream: run.stream, admission: run.admission, streaming: body.streaming, sampleRate: 24000 }, deps.output, deps.logger), () => run.stream.destroy());
  });
}
