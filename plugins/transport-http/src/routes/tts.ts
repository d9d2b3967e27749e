import type { FastifyInstance } from 'fastify';
import { DEFAULT_SAMPLE_RATE, OUTPUT_FORMAT_NAMES, OUTPUT_FORMAT_TABLE, outputFormat, startPaidSynthesis, validateFields, type HttpRouteSpec, type Logger, type PaidSynthesisServices } from '@sawt/core';
import { sendSynthesis, type OutputLimits } from '../audio-response.js';
import { errorResponses, jsonBody } from '../openapi.js';
import { speechTextOptions, ttsFields, withLocators } from '../request-fields.js';
import { apiRoute, type RouteDeps } from '../server.js';

export function registerTtsRoutes(
  app: FastifyInstance,
  describe: (r: HttpRouteSpec) => void,
  deps: RouteDeps & PaidSynthesisServices & { logger: Logger; maxTextChars: number; output: OutputLimits; track: <T>(p: Promise<T>, cancel: () => void) => Promise<T> },
): void {
  const fields = ttsFields(deps.maxTextChars);
  apiRoute(app, describe, deps, {
    method: 'POST', path: '/text-to-speech/:model_id', summary: 'Convert text to speech (WAV, PCM, MP3, Ogg Opus, FLAC, G.711; whole or streamed)', scope: 'tts',
    parameters: [
      { name: 'model_id', in: 'path', required: true, schema: { type: 'string' }, description: 'Model to use (from GET /models)' },
      { name: 'output_format', in: 'query', required: false, schema: { type: 'string', enum: [...OUTPUT_FORMAT_NAMES] }, description: 'Output format, as ElevenLabs takes it; the body\'s output_format wins' },
    ],
    requestBody: withLocators(jsonBody(fields)),
    responses: {
      200: {
        description: 'Audio in output_format (default: wav_24000, or pcm_24000 when streaming). streaming=true: sent as generated (a WAV starts with a header of unknown length; MP3 and Ogg Opus play from the first chunk); streaming=false: a complete file with Content-Length (pcm_*: raw PCM16LE mono).',
        content: Object.fromEntries([...new Set(OUTPUT_FORMAT_TABLE.map((f) => f.contentType))].map((t) => [t, {}])),
      },
      ...errorResponses('validation', 'authentication', 'insufficientBalance', 'modelAccess', 'endpointNotAllowed', 'notFound', 'concurrency', 'rateLimit', 'quotaExceeded', 'internal'),
    },
  }, async (req, reply) => {
    const { model_id } = req.params as { model_id: string };
    const body = validateFields(req.body, fields);
    const reading = speechTextOptions(req.body, body.text, body.text_type);
    const query = req.query as Record<string, unknown> | undefined;
    const format = outputFormat(body.output_format ?? query?.output_format ?? `${body.streaming ? 'pcm' : 'wav'}_${DEFAULT_SAMPLE_RATE}`);
    const run = await startPaidSynthesis(deps, {
      auth: req.auth!, requestId: req.id, modelId: model_id, voiceId: body.voice_id, text: body.text, ...reading,
      speed: body.speed, stability: body.stability, purpose: 'tts http', transport: 'http', startedAt: performance.now() - reply.elapsedTime,
      maxOutputSeconds: deps.output.maxOutputSeconds,
    });
    await deps.track(sendSynthesis(req, reply, { stream: run.stream, admission: run.admission, streaming: body.streaming, format }, deps.output, deps.logger), () => run.stream.destroy());
  });
}
