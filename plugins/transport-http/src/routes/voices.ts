import { stat } from 'node:fs/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  DEFAULT_SAMPLE_RATE, VOICE_AGES, VOICE_GENDERS, AudioTooLong, asRawPcm16, audioSource, decodeAudioFile, transcodeToWav, errors, isSawtError, outputFormat, plausibleRawPcm16, resolveModelFor, startPaidSynthesis, validateFields, defineFields,
  type AudioSource, type ConcurrencySlot, type HttpRouteSpec, type Logger, type PaidSynthesisServices, type Plan, type VoiceCloning, type WorkDir,
} from '@sawt/core';
import { sendSynthesis, type OutputLimits } from '../audio-response.js';
import { receiveForm, type UploadedFile } from '../multipart.js';
import { errorResponses, multipartBody } from '../openapi.js';
import { absoluteUrl, apiRoute, type RouteDeps } from '../server.js';

const FILE_NOT_AUDIO = 'file is required and must be of audio type';
const VOICE_FILE_MESSAGE = 'voice_file is required and must be a file';
const REFERENCE_MESSAGE = 'reference_audio_file is required and must be a file';
const REFERENCE_NOT_AUDIO = 'reference_audio_file must be an audio file (WAV, MP3, M4A, FLAC, OGG, WebM, AAC or AMR)';
const VOICE_FILE_NOT_AUDIO = 'voice_file must be an audio file (raw PCM16 24 kHz mono as the preview streams it, WAV, MP3, M4A, FLAC, OGG, WebM, AAC or AMR)';
/** Longest reference or voice file decoded (seconds). */
const MAX_SECONDS = 600;
const TOO_LONG = `The audio is too long: at most ${MAX_SECONDS} seconds are accepted`;
/**
 * What is kept of a clone's reference recording, and analysed into its profile: its first 5 minutes,
 * as PCM16 mono 24 kHz WAV. Bounds a job's memory (590 s took ~125 MB) and CPU, whatever the upload's length.
 */
const STORED_REFERENCE = { seconds: 300, sampleRate: 24000 };

export function previewFields(maxTextChars: number) {
  return defineFields({
    text: { type: 'string', required: true, textRule: true, maxLength: maxTextChars, description: 'Text to speak; at least 3 words and 10 characters' },
    similarity: { type: 'number', required: true, minimum: 0, maximum: 1, description: 'Higher gives a voice more similar to the source' },
    speed: { type: 'number', minimum: 0.7, maximum: 1.2, default: 1, description: 'Below 1.0 slows speech, above 1.0 speeds it' },
    model_id: { type: 'string', required: true, description: 'Model to use' },
  });
}

const LANGUAGE = '[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*';
const DIALECT = '[\\p{L}\\p{N}_-]+(?: [\\p{L}\\p{N}_-]+)*';
const commaList = (item: string) => `^\\s*${item}(?:\\s*,\\s*${item})*\\s*$`;

/** The clone form; gender, age, languages and dialects follow what a listed Voice may hold (OpenAPI Voice). */
export const cloneFields = defineFields({
  name: { type: 'string', required: true, maxLength: 200, description: 'Name of the new voice' },
  text: { type: 'string', required: true, description: 'The text used for the preview' },
  stability: { type: 'number', required: true, minimum: 0, maximum: 1, description: 'Higher gives more consistent output' },
  model: { type: 'string', required: true, description: 'Model identifier used for cloning' },
  description: { type: 'string', maxLength: 2000 },
  gender: { type: 'string', enum: VOICE_GENDERS, description: 'male or female (omit or leave empty: unknown)' },
  age: { type: 'string', enum: VOICE_AGES, description: 'middle or elderly (omit or leave empty: unknown)' },
  languages: {
    type: 'string', maxLength: 1000, pattern: commaList(LANGUAGE), description: 'Comma-separated language codes, e.g. ar, en',
    message: 'languages must be comma-separated language codes, e.g. ar, en',
  },
  dialects: {
    type: 'string', maxLength: 1000, pattern: commaList(DIALECT), description: 'Comma-separated dialect names, e.g. fusha, egyptian',
    message: 'dialects must be comma-separated dialect names (letters, digits, - and _), e.g. fusha, egyptian',
  },
  avatar_url: { type: 'string', maxLength: 2000, format: 'http-url', description: 'http or https URL of an avatar image' },
});

/** Rethrows an error `keep` accepts (default: a SawtError), anything else as a 500 with `message`. */
const rethrow = (message: string, keep: (e: unknown) => boolean = isSawtError) => (e: unknown): never => {
  throw keep(e) ? e : errors.internal(message, e);
};
const list = (s: string | undefined): string[] => (s === undefined ? [] : s.split(',').map((x) => x.trim()).filter(Boolean));
const orNull = (s: string | undefined): string | null => (s !== undefined && s.trim() !== '' ? s.trim() : null);

export interface VoiceRouteDeps extends RouteDeps, PaidSynthesisServices {
  logger: Logger;
  maxTextChars: number;
  maxUploadBytes: number;
  ffmpegPath: string;
  ffprobePath: string;
  cloning: VoiceCloning;
  workDir: WorkDir;
  output: OutputLimits;
  /** Cloned voices an account of each plan may hold (null: no limit). */
  maxClonedVoices: Record<Plan, number | null>;
  track: <T>(p: Promise<T>, cancel: () => void) => Promise<T>;
}

export function registerVoiceRoutes(app: FastifyInstance, describe: (r: HttpRouteSpec) => void, deps: VoiceRouteDeps): void {
  const pFields = previewFields(deps.maxTextChars);

  const form = (req: FastifyRequest, fileFields: string[]) => receiveForm(req.raw, { file: () => deps.workDir.file('upload', '.bin'), fileFields, maxFileBytes: deps.maxUploadBytes });

  /** What an upload is, from its bytes; `rawPcm` also accepts headerless PCM16 24 kHz mono. 40001 with `notAudio` otherwise. */
  function sourceOf(file: UploadedFile, notAudio: string, rawPcm: boolean): Promise<AudioSource> {
    return audioSource(file, { notAudioMessage: notAudio, ...(rawPcm ? { rawPcm16: { sampleRate: STORED_REFERENCE.sampleRate } } : {}) });
  }

  /** Decodes an upload to PCM16 24 kHz mono, streaming and capped at MAX_SECONDS, keeping what a clone stores. */
  function decode(source: AudioSource, notAudio: string): Promise<Buffer> {
    return decodeAudioFile(deps.ffmpegPath, source, { sampleRate: STORED_REFERENCE.sampleRate, maxSeconds: MAX_SECONDS, keepSeconds: STORED_REFERENCE.seconds }).catch((e) => {
      throw errors.validation(e instanceof AudioTooLong ? TOO_LONG : notAudio);
    });
  }

  /**
   * The clone's sample as PCM16 24 kHz mono WAV in `output` (streamed to disk by ffmpeg), at most
   * MAX_SECONDS; bytes that looked like a container but do not decode as one are read as raw PCM16.
   */
  async function sampleWav(file: UploadedFile, source: AudioSource, output: string): Promise<void> {
    const cap = { sampleRate: STORED_REFERENCE.sampleRate, maxSeconds: MAX_SECONDS + 0.5 };
    const notAudio = () => errors.validation(VOICE_FILE_NOT_AUDIO);
    await transcodeToWav(deps.ffmpegPath, source, output, cap).catch(() => {
      if (source.container === 'pcm16' || !plausibleRawPcm16(file.head, file.bytes)) throw notAudio();
      return transcodeToWav(deps.ffmpegPath, asRawPcm16(source, STORED_REFERENCE.sampleRate), output, cap).catch(() => {
        throw notAudio();
      });
    });
    const seconds = ((await stat(output)).size - 44) / 2 / STORED_REFERENCE.sampleRate;
    if (seconds <= 0) throw notAudio();
    if (seconds > MAX_SECONDS) throw errors.validation(TOO_LONG);
  }

  app.register(async (child) => {
    // Bodies are read by the handlers (files streamed to disk), not by fastify.
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));

    apiRoute(child, describe, deps, {
      method: 'POST', path: '/voices/preview', summary: 'Preview a voice from an audio sample: the text spoken in a voice converted toward the sample, streamed as raw PCM16 24 kHz mono (billed like text-to-speech)', scope: 'preview',
      requestBody: multipartBody(pFields, { file: 'Audio file containing the voice (WAV, MP3, M4A, FLAC, OGG; detected from the bytes); at least 2 s of voiced speech' }),
      responses: {
        200: { description: 'Streamed raw PCM16LE mono 24000 Hz, sent as generated', content: { 'audio/raw;codec=pcm16;rate=24000;channels=1': {} } },
        ...errorResponses('validation', 'authentication', 'insufficientBalance', 'modelAccess', 'endpointNotAllowed', 'notFound', 'concurrency', 'rateLimit', 'quotaExceeded', 'internal'),
      },
    }, async (req, reply) => {
      const f = await form(req, ['file']);
      try {
        const body = validateFields(f.fields, pFields, { coerce: true });
        const file = f.files.file;
        if (!file || file.bytes === 0) throw errors.validation(FILE_NOT_AUDIO);
        const model = await resolveModelFor(deps, req.auth!, body.model_id);
        const source = await sourceOf(file, FILE_NOT_AUDIO, false);
        // The upload is decoded and analysed only once the plan's slot and the money for the
        // text are taken (startPaidSynthesis admits, then calls start).
        const run = await startPaidSynthesis(deps, {
          auth: req.auth!, requestId: req.id, modelId: model.model_id, voiceId: '', text: body.text, speed: body.speed, stability: 0.5, purpose: 'voice preview',
          transport: 'preview', startedAt: performance.now() - reply.elapsedTime,
          start: async (m) => {
            const failed = rethrow('Failed to generate voice preview');
            // The decoded PCM is held only while it is analysed.
            const profile = await deps.cloning.analyze(await decode(source, FILE_NOT_AUDIO)).catch(failed);
            await deps.cloning.rememberPreview({ accountId: req.auth!.account.id, referenceSha256: file.sha256, similarity: body.similarity, speed: body.speed }).catch(failed);
            return deps.cloning.preview({ profile, modelId: m.model_id, accountId: req.auth!.account.id, text: body.text, speed: body.speed, similarity: body.similarity, requestId: req.id })
              .catch(rethrow('Failed to generate voice preview', (e) => isSawtError(e) && e.status < 500));
          },
        });
        await deps.track(sendSynthesis(req, reply, { stream: run.stream, admission: run.admission, streaming: true, format: outputFormat(`pcm_${DEFAULT_SAMPLE_RATE}`) }, deps.output, deps.logger), () => run.stream.destroy());
      } finally {
        await f.cleanup();
      }
    });

    apiRoute(child, describe, deps, {
      method: 'POST', path: '/voices/clone', summary: 'Create a permanent cloned voice from a preview and its reference sample (free); the voice_id works at once over HTTP and WebSocket, for this account only', scope: 'clone',
      requestBody: multipartBody(cloneFields, {
        voice_file: 'The audio the preview produced: raw PCM16 24 kHz mono as streamed, or WAV, MP3, M4A, FLAC, OGG',
        reference_audio_file: 'The original audio used for that preview',
      }),
      responses: {
        200: { description: 'The cloned voice record', content: { 'application/json': { schema: { $ref: '#/components/schemas/ClonedVoice' } } } },
        ...errorResponses('validation', 'authentication', 'modelAccess', 'endpointNotAllowed', 'notFound', 'concurrency', 'rateLimit', 'internal'),
      },
    }, async (req) => {
      const f = await form(req, ['voice_file', 'reference_audio_file']);
      let slot: ConcurrencySlot | null = null;
      try {
        const voiceFile = f.files.voice_file;
        if (!voiceFile || voiceFile.bytes === 0) throw errors.validation(VOICE_FILE_MESSAGE);
        const reference = f.files.reference_audio_file;
        if (!reference || reference.bytes === 0) throw errors.validation(REFERENCE_MESSAGE);
        const body = validateFields(f.fields, cloneFields, { coerce: true });
        const model = await resolveModelFor(deps, req.auth!, body.model);
        const { account } = req.auth!;
        const max = deps.maxClonedVoices[account.plan] ?? null;
        const limit = max === null ? undefined : {
          max,
          refuse: (held: number) => errors.validation(`This account holds ${held} cloned voice${held === 1 ? '' : 's'}, the limit of its plan (${account.plan}: ${max}); delete one (DELETE /api/v1/voices/{voice_id}) before cloning another`),
        };
        // Refused at once when the account is full (create checks again, atomically with the insert).
        const held = limit ? await deps.cloning.count(account.id) : 0;
        if (limit && held >= limit.max) throw limit.refuse(held);
        const refSource = await sourceOf(reference, REFERENCE_NOT_AUDIO, false);
        const sampleSource = await sourceOf(voiceFile, VOICE_FILE_NOT_AUDIO, true);
        // Nothing is decoded before the plan's slot is held (clone is free: no money).
        slot = await deps.admission.holdSlot(req.auth!);
        const profile = await deps.cloning.analyze(await decode(refSource, REFERENCE_NOT_AUDIO)).catch(rethrow('Failed to process voice file'));
        // The reference and the sample are kept transcoded (on disk, streamed by ffmpeg) and capped, not as uploaded.
        const storedReference = deps.workDir.file('reference', '.wav');
        f.track(storedReference);
        await transcodeToWav(deps.ffmpegPath, refSource, storedReference, { sampleRate: STORED_REFERENCE.sampleRate, maxSeconds: STORED_REFERENCE.seconds })
          .catch(rethrow('Failed to process voice file', () => false));
        const sampleFile = deps.workDir.file('sample', '.wav');
        f.track(sampleFile);
        await sampleWav(voiceFile, sampleSource, sampleFile);
        const record = await deps.cloning.create({
          accountId: req.auth!.account.id, modelId: model.model_id, name: body.name.trim(), description: orNull(body.description),
          gender: orNull(body.gender), age: orNull(body.age), languages: list(body.languages), dialect: list(body.dialects), avatarUrl: orNull(body.avatar_url),
          stability: body.stability, text: body.text, profile, referenceFile: storedReference, referenceSha256: reference.sha256, sampleFile, ...(limit ? { limit } : {}),
        });
        return { ...record, sample_url: absoluteUrl(req, record.sample_url) };
      } finally {
        await (slot as ConcurrencySlot | null)?.release();
        await f.cleanup();
      }
    });
  });

  apiRoute(app, describe, deps, {
    method: 'DELETE', path: '/voices/:voice_id', summary: "Delete one of this account's cloned voices: its record, reference recording, profile and sample", scope: 'clone',
    parameters: [{ name: 'voice_id', in: 'path', required: true, schema: { type: 'string' }, description: 'A voice_id returned by POST /voices/clone' }],
    responses: {
      200: {
        description: 'The voice is deleted; its voice_id no longer works',
        content: { 'application/json': { schema: { type: 'object', required: ['voice_id', 'deleted'], properties: { voice_id: { type: 'string' }, deleted: { type: 'boolean', enum: [true] } } } } },
      },
      ...errorResponses('authentication', 'endpointNotAllowed', 'notFound', 'rateLimit', 'internal'),
    },
  }, async (req) => {
    const { voice_id } = req.params as { voice_id: string };
    // Built-in voices and other accounts' clones are "not found", alike.
    if (!(await deps.cloning.delete(voice_id, req.auth!.account.id))) throw errors.voiceNotFound(voice_id);
    return { voice_id, deleted: true };
  });
}
