import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_SAMPLE_RATE, OUTPUT_FORMAT_NAMES, OUTPUT_FORMAT_TABLE, defineFields, outputFormat, playedDelayMs, startPaidSynthesis, validateFields, type Alignment, type HttpRouteSpec, type Logger, type PaidSynthesisServices, type SpeechChunk, type SpeechMark } from '@sawt/core';
import { sendSynthesis, type OutputLimits } from '../audio-response.js';
import { sendFramed } from '../framed-response.js';
import { errorResponses, jsonBody } from '../openapi.js';
import { speechTextOptions, ttsFields, withLocators } from '../request-fields.js';
import { apiRoute, type RouteDeps } from '../server.js';

type TtsDeps = RouteDeps & PaidSynthesisServices & { logger: Logger; maxTextChars: number; output: OutputLimits; track: <T>(p: Promise<T>, cancel: () => void) => Promise<T> };

const ERRORS = errorResponses('validation', 'authentication', 'insufficientBalance', 'modelAccess', 'endpointNotAllowed', 'notFound', 'concurrency', 'rateLimit', 'quotaExceeded', 'internal');
const parameters = (outputFormat: string) => [
  { name: 'model_id', in: 'path', required: true, schema: { type: 'string' }, description: 'Model to use (from GET /models)' },
  { name: 'output_format', in: 'query', required: false, schema: { type: 'string', enum: [...OUTPUT_FORMAT_NAMES] }, description: `${outputFormat}; the body's output_format wins` },
];

/** A text-to-speech request's paid synthesis started, in its output_format (default WAV, or PCM when streamed). */
async function startTts(deps: TtsDeps, req: FastifyRequest, reply: FastifyReply, fields: ReturnType<typeof ttsFields>, streaming?: boolean) {
  const { model_id } = req.params as { model_id: string };
  const body = validateFields(req.body, fields);
  const reading = speechTextOptions(req.body, body.text, body.text_type);
  const query = req.query as Record<string, unknown> | undefined;
  const format = outputFormat(body.output_format ?? query?.output_format ?? `${(streaming ?? body.streaming) ? 'pcm' : 'wav'}_${DEFAULT_SAMPLE_RATE}`);
  const run = await startPaidSynthesis(deps, {
    auth: req.auth!, requestId: req.id, modelId: model_id, voiceId: body.voice_id, text: body.text, ...reading,
    speed: body.speed, stability: body.stability, purpose: 'tts http', transport: 'http', startedAt: performance.now() - reply.elapsedTime,
    maxOutputSeconds: deps.output.maxOutputSeconds,
  });
  return { body, format, run };
}

const alignmentSchema = {
  type: 'object',
  required: ['chars', 'charStartTimesMs', 'charDurationsMs'],
  description: 'Every character of the text exactly as sent (joined, they give the text back), with its start and duration in ms from the start of the audio as played (an MP3\'s encoder delay included)',
  properties: {
    chars: { type: 'array', items: { type: 'string' } },
    charStartTimesMs: { type: 'array', items: { type: 'integer' } },
    charDurationsMs: { type: 'array', items: { type: 'integer' } },
  },
};

const marksSchema = {
  type: 'array',
  description: 'The SSML <mark name> elements the audio reached, in order, with their time in ms from the start of the audio as played (streamed: those reached by this chunk); absent when there are none',
  items: { type: 'object', required: ['name', 'timeMs'], properties: { name: { type: 'string' }, timeMs: { type: 'integer' } } },
};

const timedAudioSchema = (nullableAlignment: boolean) => ({
  type: 'object',
  required: ['audio_base64', 'alignment'],
  properties: {
    audio_base64: { type: 'string', format: 'byte', description: 'The audio in output_format (streamed: this chunk\'s bytes; the chunks concatenate to one valid stream)' },
    alignment: nullableAlignment ? { ...alignmentSchema, nullable: true, description: `${alignmentSchema.description}; null on a chunk that adds no characters` } : alignmentSchema,
    marks: marksSchema,
  },
});

const json = (audio: Buffer, alignment: Alignment | null, marks: SpeechMark[]) => JSON.stringify({ audio_base64: audio.toString('base64'), alignment, ...(marks.length && { marks }) });

/** POST /text-to-speech/{model_id}, and …/with-timestamps and …/stream/with-timestamps: audio with per-character timings. */
export function registerTtsRoutes(app: FastifyInstance, describe: (r: HttpRouteSpec) => void, deps: TtsDeps): void {
  const base = ttsFields(deps.maxTextChars);
  apiRoute(app, describe, deps, {
    method: 'POST', path: '/text-to-speech/:model_id', summary: 'Convert text to speech (WAV, PCM, MP3, Ogg Opus, FLAC, G.711; whole or streamed)', scope: 'tts',
    parameters: parameters('Output format, as ElevenLabs takes it'),
    requestBody: withLocators(jsonBody(base)),
    responses: {
      200: {
        description: 'Audio in output_format (default: wav_24000, or pcm_24000 when streaming). streaming=true: sent as generated (a WAV starts with a header of unknown length; MP3 and Ogg Opus play from the first chunk); streaming=false: a complete file with Content-Length (pcm_*: raw PCM16LE mono).',
        content: Object.fromEntries([...new Set(OUTPUT_FORMAT_TABLE.map((f) => f.contentType))].map((t) => [t, {}])),
      },
      ...ERRORS,
    },
  }, async (req, reply) => {
    const { body, format, run } = await startTts(deps, req, reply, base);
    await deps.track(sendSynthesis(req, reply, { stream: run.stream, admission: run.admission, streaming: body.streaming, format }, deps.output, deps.logger), () => run.stream.destroy());
  });

  const fields = defineFields({
    ...base,
    streaming: { type: 'boolean', description: 'Ignored: the path decides (…/stream/with-timestamps streams)' },
    output_format: { ...base.output_format, description: 'Output format (see the README\'s Output formats table); wins over the output_format query parameter. Default: wav_24000, or pcm_24000 on …/stream/with-timestamps' },
  });
  for (const streaming of [false, true]) {
    apiRoute(app, describe, deps, {
      method: 'POST',
      path: streaming ? '/text-to-speech/:model_id/stream/with-timestamps' : '/text-to-speech/:model_id/with-timestamps',
      summary: streaming
        ? 'Speech with character timings, streamed: newline-delimited JSON objects {audio_base64, alignment} in order, as the audio is generated'
        : 'Speech with character timings: {audio_base64, alignment} over the text exactly as sent, in any output format',
      scope: 'tts',
      parameters: parameters('Output format'),
      requestBody: withLocators(jsonBody(fields)),
      responses: {
        200: streaming
          ? { description: 'One JSON object per line (application/x-ndjson): the audio chunks in order (concatenated, one valid stream in output_format) and the timings of the characters they add', content: { 'application/x-ndjson': { schema: timedAudioSchema(true) } } }
          : { description: 'The whole audio (base64) and the timings of every character', content: { 'application/json': { schema: timedAudioSchema(false) } } },
        ...ERRORS,
      },
    }, async (req, reply) => {
      const { body, format, run } = await startTts(deps, req, reply, fields as unknown as typeof base, streaming);
      // SSML marks as the engine reaches them (chunk.info.marks), shifted like the alignment to the audio as
      // played; collected as the chunks are read (the stream may have made its first chunk during admission).
      const marks: SpeechMark[] = [];
      const delayMs = playedDelayMs(format);
      const onChunk = ({ info }: SpeechChunk) => {
        for (const m of info.marks ?? []) marks.push({ name: m.name, timeMs: m.timeMs + delayMs });
      };
      const taken = () => marks.splice(0);
      const framing = streaming
        ? { contentType: 'application/x-ndjson', streaming: true, onChunk, piece: (audio: Buffer, a: Alignment | null) => `${json(audio, a, taken())}\n`, whole: (audio: Buffer, a: Alignment) => json(audio, a, taken()) }
        : { contentType: 'application/json; charset=utf-8', streaming: false, onChunk, piece: () => null, whole: (audio: Buffer, a: Alignment) => json(audio, a, taken()) };
      // The alignment is over the text as sent; over the spoken text when markup or rules changed it.
      const aligned = run.billableText === body.text.trim() ? body.text : run.billableText;
      await deps.track(sendFramed(req, reply, { stream: run.stream, admission: run.admission, format, text: aligned }, framing, deps.output, deps.logger), () => run.stream.destroy());
    });
  }
}
