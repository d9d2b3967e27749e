/**
 * The OpenAI-compatible speech API at the server root (baseURL http://host:port/v1), on Sawt's paid path,
 * with OpenAI's error shape (code: Sawt's errorCode), so OpenAI's own clients raise their own error classes.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DICTIONARY_LOCATORS_SCHEMA, SawtError, errors, outputFormat, parseDictionaryLocators, startPaidSynthesis, type HttpRouteSpec, type Logger, type PaidSynthesisServices } from '@sawt/core';
import type { OutputLimits } from '../audio-response.js';
import { sendFramed } from '../framed-response.js';
import { errorHandler, requireScope, sendError, type RouteDeps } from '../server.js';

/** OpenAI's response_format → Sawt's output format (pcm: 24 kHz s16le as OpenAI defines it). */
const RESPONSE_FORMATS: Record<string, string> = { mp3: 'mp3_44100_128', opus: 'opus_48000_64', wav: 'wav_24000', flac: 'flac_24000', pcm: 'pcm_24000' };
/** The speeds the models can do; OpenAI's 0.25–4.0 is clamped onto it. */
const MODEL_SPEED = { min: 0.7, max: 1.2 };
const OPENAI_SPEED = { min: 0.25, max: 4 };

/** The field an error is about (OpenAI's `param`). */
const params = new WeakMap<SawtError, string>();
function invalid(param: string, message: string): SawtError {
  const e = errors.validation(message);
  params.set(e, param);
  return e;
}

/** OpenAI's error `type` for a status (5xx: server_error, others: invalid_request_error). */
const ERROR_TYPES: Record<number, string> = { 401: 'authentication_error', 402: 'insufficient_balance', 403: 'permission_error', 404: 'not_found_error', 429: 'rate_limit_error' };

/** {"error": {message, type, code, param}}: code is Sawt's numeric errorCode. */
function openAiErrorBody(e: SawtError): { error: { message: string; type: string; code: number; param: string | null } } {
  return { error: { message: e.message, type: ERROR_TYPES[e.status] ?? (e.status >= 500 ? 'server_error' : 'invalid_request_error'), code: e.code, param: params.get(e) ?? null } };
}

const errorSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code', 'param'],
      properties: {
        message: { type: 'string' }, type: { type: 'string' },
        code: { type: 'integer', description: 'Sawt\'s numeric errorCode (README, Errors)' },
        param: { type: 'string', nullable: true, description: 'The request field the error is about, when one is' },
      },
    },
  },
};
const errorStatuses = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [String(s), { description: `OpenAI's error shape; code carries Sawt's errorCode`, content: { 'application/json': { schema: errorSchema } } }]));

const created = Math.floor(Date.now() / 1000);

export function registerOpenAiRoutes(
  app: FastifyInstance,
  describe: (r: HttpRouteSpec) => void,
  deps: RouteDeps & PaidSynthesisServices & { logger: Logger; maxTextChars: number; output: OutputLimits; track: <T>(p: Promise<T>, cancel: () => void) => Promise<T>; mapping: { models: Record<string, string[]>; voices: Record<string, string> } },
): void {
  const { mapping } = deps;
  const resolveModel = (name: string): string => {
    const candidates = Object.hasOwn(mapping.models, name) ? mapping.models[name]! : null;
    if (!candidates) return name;
    return candidates.find((id) => deps.models.get(id)?.available) ?? candidates[candidates.length - 1] ?? name;
  };
  describe({
    method: 'POST', path: '//v1/audio/speech', scope: 'openai',
    summary: 'OpenAI-compatible text to speech (baseURL http://host:port/v1): model (a Sawt model or tts-1, tts-1-hd, gpt-4o-mini-tts), input, voice (a Sawt voice or an OpenAI voice name), response_format mp3|opus|wav|flac|pcm, speed 0.25–4.0 (clamped to 0.7–1.2: header x-sawt-speed-applied), instructions (ignored), stream_format audio|sse; Sawt extensions: text_type (ssml), pronunciation_dictionary_locators',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object', required: ['model', 'input', 'voice'],
            properties: {
              model: { type: 'string' }, input: { type: 'string', minLength: 1, maxLength: deps.maxTextChars, description: 'Any text: the 3-word minimum of /api/v1 does not apply' },
              voice: { oneOf: [{ type: 'string' }, { type: 'object', required: ['id'], properties: { id: { type: 'string' } } }] },
              response_format: { type: 'string', enum: Object.keys(RESPONSE_FORMATS), default: 'mp3' },
              speed: { type: 'number', minimum: OPENAI_SPEED.min, maximum: OPENAI_SPEED.max, default: 1 },
              instructions: { type: 'string', description: 'Accepted and ignored' },
              stream_format: { type: 'string', enum: ['audio', 'sse'], default: 'audio' },
              text_type: { type: 'string', enum: ['text', 'ssml'], default: 'text', description: 'Sawt extension: ssml reads input as an SSML document (README, SSML); an input starting with <speak is SSML either way' },
              pronunciation_dictionary_locators: { ...DICTIONARY_LOCATORS_SCHEMA, description: `Sawt extension: ${DICTIONARY_LOCATORS_SCHEMA.description}` },
            },
          },
        },
      },
    },
    responses: {
      200: {
        description: 'The audio as generated (chunked), or with stream_format sse, Server-Sent Events speech.audio.delta {audio: base64} then speech.audio.done {usage}',
        content: Object.fromEntries([...Object.values(RESPONSE_FORMATS).map((f) => outputFormat(f).contentType), 'text/event-stream'].map((c) => [c, {}])),
      },
      ...errorStatuses(400, 401, 402, 403, 404, 408, 429, 500, 503),
    },
  });
  describe({
    method: 'GET', path: '//v1/models', scope: 'openai', summary: 'OpenAI-compatible model list: the Sawt models offered and the OpenAI names mapped onto them',
    responses: {
      200: {
        description: 'OpenAI\'s list shape',
        content: {
          'application/json': {
            schema: {
              type: 'object', required: ['object', 'data'],
              properties: {
                object: { type: 'string', enum: ['list'] },
                data: { type: 'array', items: { type: 'object', required: ['id', 'object', 'created', 'owned_by'], properties: { id: { type: 'string' }, object: { type: 'string', enum: ['model'] }, created: { type: 'integer' }, owned_by: { type: 'string' } } } },
              },
            },
          },
        },
      },
      ...errorStatuses(401, 403, 429, 500, 503),
    },
  });

  void app.register(async (v1) => {
    v1.setErrorHandler(errorHandler(deps.logger, openAiErrorBody));
    v1.setNotFoundHandler((_req, reply) => sendError(reply, new SawtError('notFound', 'Endpoint not found: the OpenAI-compatible API has POST /v1/audio/speech and GET /v1/models'), openAiErrorBody));
    const preHandler = requireScope('openai', deps);

    v1.get('/models', { preHandler }, async () => {
      const offered = deps.models.list().filter((m) => m.available).map((m) => m.model_id);
      const aliases = Object.keys(mapping.models).filter((name) => offered.includes(resolveModel(name)));
      return { object: 'list', data: [...offered, ...aliases].map((id) => ({ id, object: 'model', created, owned_by: 'sawt' })) };
    });

    v1.post('/audio/speech', { preHandler }, async (req: FastifyRequest, reply: FastifyReply) => {
      const b = req.body;
      if (b === null || typeof b !== 'object' || Array.isArray(b)) throw invalid('input', 'The body must be a JSON object with model, input and voice');
      const body = b as Record<string, unknown>;
      if (typeof body.model !== 'string' || body.model === '') throw invalid('model', 'model is required: a Sawt model id or tts-1, tts-1-hd, gpt-4o-mini-tts');
      if (typeof body.input !== 'string' || body.input.trim() === '') throw invalid('input', 'input is required: the text to speak');
      if ([...body.input].length > deps.maxTextChars) throw invalid('input', `input must have at most ${deps.maxTextChars} characters`);
      const voiceField = typeof body.voice === 'object' && body.voice !== null ? (body.voice as { id?: unknown }).id : body.voice;
      if (typeof voiceField !== 'string' || voiceField === '') throw invalid('voice', 'voice is required: a Sawt voice id or an OpenAI voice name');
      const responseFormat = body.response_format ?? 'mp3';
      if (responseFormat === 'aac') throw invalid('response_format', 'response_format aac is not supported: use mp3, opus, wav, flac or pcm');
      if (typeof responseFormat !== 'string' || !Object.hasOwn(RESPONSE_FORMATS, responseFormat)) throw invalid('response_format', 'response_format must be one of mp3, opus, wav, flac, pcm');
      const speed = body.speed ?? 1;
      if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < OPENAI_SPEED.min || speed > OPENAI_SPEED.max) throw invalid('speed', 'speed must be a number from 0.25 to 4.0');
      if (body.instructions !== undefined && typeof body.instructions !== 'string') throw invalid('instructions', 'instructions must be a string');
      const streamFormat = body.stream_format ?? 'audio';
      if (streamFormat !== 'audio' && streamFormat !== 'sse') throw invalid('stream_format', 'stream_format must be audio or sse');
      const textType = body.text_type ?? 'text';
      if (textType !== 'text' && textType !== 'ssml') throw invalid('text_type', 'text_type must be text or ssml');
      let dictionaryLocators;
      try {
        dictionaryLocators = parseDictionaryLocators(body.pronunciation_dictionary_locators);
      } catch (e) {
        throw invalid('pronunciation_dictionary_locators', (e as Error).message);
      }
      const applied = Math.min(MODEL_SPEED.max, Math.max(MODEL_SPEED.min, speed));
      const modelId = resolveModel(body.model);
      const voiceId = Object.hasOwn(mapping.voices, voiceField) ? mapping.voices[voiceField]! : voiceField;
      const format = outputFormat(RESPONSE_FORMATS[responseFormat]);
      let run: Awaited<ReturnType<typeof startPaidSynthesis>>;
      try {
        run = await startPaidSynthesis(deps, {
          auth: req.auth!, requestId: req.id, modelId, voiceId, text: body.input, speed: applied, stability: 0.5,
          // Any text (OpenAI has no minimum); SSML and dictionaries as on /api/v1 (extension fields).
          textRule: false, textType, ...(dictionaryLocators && { dictionaryLocators }),
          purpose: 'tts openai', transport: 'http', startedAt: performance.now() - reply.elapsedTime, maxOutputSeconds: deps.output.maxOutputSeconds,
        });
      } catch (e) {
        if (e instanceof SawtError && e.status === 404) params.set(e, /^Voice/.test(e.message) ? 'voice' : /^Pronunciation dictionary/.test(e.message) ? 'pronunciation_dictionary_locators' : 'model');
        else if (e instanceof SawtError && e.status === 400 && /^SSML/.test(e.message)) params.set(e, 'input');
        throw e;
      }
      const headers = { 'x-sawt-speed-applied': String(applied), 'x-sawt-model': modelId, 'x-sawt-voice': voiceId };
      const chars = run.chars;
      const framing = streamFormat === 'sse'
        ? {
          contentType: 'text/event-stream', streaming: true, headers,
          piece: (audio: Buffer) => (audio.length ? `data: ${JSON.stringify({ type: 'speech.audio.delta', audio: audio.toString('base64') })}\n\n` : null),
          whole: (audio: Buffer) => audio,
          end: () => `data: ${JSON.stringify({ type: 'speech.audio.done', usage: { input_tokens: chars, output_tokens: 0, total_tokens: chars } })}\n\n`,
        }
        : { contentType: format.contentType, streaming: true, headers, piece: (audio: Buffer) => (audio.length ? audio : null), whole: (audio: Buffer) => audio };
      await deps.track(sendFramed(req, reply, { stream: run.stream, admission: run.admission, format, text: run.billableText }, framing, deps.output, deps.logger), () => run.stream.destroy());
    });
  }, { prefix: '/v1' });
}
