/**
 * The WebSocket protocol: the client messages (their field rules, parsed and checked) and the
 * server's messages and close codes. No I/O here.
 */
import { DEFAULT_SAMPLE_RATE, defineFields, DICTIONARY_LOCATORS_SCHEMA, errors, MAX_DICTIONARY_LOCATORS, OUTPUT_FORMAT_NAMES, outputFormat, parseDictionaryLocators, synthesisRate, validateFields, type Alignment, type SawtError } from '@sawt/core';
import type { MessageBuffers } from './message-buffers.js';

/**
 * Field rules of the client messages: the session validates with them (the same
 * rules and messages as HTTP) and the AsyncAPI document is generated from them.
 */
export const initFields = defineFields({
  model_id: { type: 'string', description: 'Model to use (GET /models); default the service\'s mini model, sawt-mini.' },
  voice_id: { type: 'string', required: true, description: 'Voice to use (GET /voices); a cloned voice of the account works too.' },
  voice_settings: {
    type: 'object',
    description: 'Optional voice settings.',
    fields: {
      stability: { type: 'number', minimum: 0, maximum: 1, default: 0.5, description: 'Higher gives more consistent output.' },
      similarity_boost: { type: 'number', minimum: 0, maximum: 1, default: 0.75, description: 'Accepted for compatibility; no effect on the built-in voices.' },
      speed: { type: 'number', minimum: 0.7, maximum: 1.2, default: 1, description: 'Below 1.0 slows speech, above 1.0 speeds it.' },
    },
  },
  output_format: { type: 'string', enum: OUTPUT_FORMAT_NAMES, description: 'Output format (README: Output formats); default pcm_24000. Audio messages carry its bytes and state its rate in sampleRate; one encoder per connection, its stream continuing across flushes (the messages of a flush, and of all flushes, concatenate to one valid stream).' },
  x_api_key: { type: 'string', description: 'The API key, when it is not given in the x-api-key query parameter or header.' },
  text_type: {
    type: 'string', enum: ['text', 'ssml'],
    description: 'ssml: the text messages are fragments of one SSML stream (README, SSML): joined, cut at the generation points into whole documents (the elements open at a cut are closed and reopened), a tag split across messages waiting for its end; markup is never read aloud and <mark> times come back in audio messages\' marks. text (default): plain text, whose only markup is <break time="…"/>.',
  },
});

/** JSON Schema of initConnection's `pronunciation_dictionary_locators` (the field rules have no arrays): core's, said of a session. */
export const LOCATORS_SCHEMA = {
  ...DICTIONARY_LOCATORS_SCHEMA,
  description: `Up to ${MAX_DICTIONARY_LOCATORS} of the account's pronunciation dictionaries (POST /pronunciation-dictionaries), applied in this order to every text of the session before normalization, each at the version it has when initConnection arrives (kept for the whole session) unless version_id names one; an unknown, deleted or other account's dictionary is error 40401 at initConnection.`,
} as const;

export const textFields = defineFields({
  text: { type: 'string', required: false, description: 'Text chunk to add to the buffer. Generation starts at a sentence end or once the buffer is long enough (50, then 120, then 200 characters).' },
  flush: { type: 'boolean', default: false, description: 'Generate everything buffered now; the text received since the previous flush must have at least 3 words and 10 characters (else error 40001). The last audio message of a flush carries isFinal: true.' },
  try_trigger_generation: { type: 'boolean', default: false, description: 'Start generating the buffered whole words now when they are at least 20 characters, without waiting for a sentence end.' },
});

/** Close codes the server uses. */
export const CLOSE = { normal: 1000, shutdown: 1001, policy: 1008 } as const;

const MESSAGE_TYPES = ['initConnection', 'text', 'clear', 'closeConnection'] as const;

/**
 * A message's text as received (null for a binary one) by its type; `body` is the whole JSON object,
 * validated once the session may act on it. 40001 unless it is a JSON object of a known type.
 */
export function parseClientMessage(raw: string | null): { type: (typeof MESSAGE_TYPES)[number]; body: Record<string, unknown> } {
  let msg: unknown;
  try {
    if (raw === null) throw new Error('binary');
    msg = JSON.parse(raw);
  } catch {
    throw errors.validation('Messages must be JSON text');
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) throw errors.validation('Messages must be JSON objects');
  const body = msg as Record<string, unknown>;
  const type = MESSAGE_TYPES.find((t) => t === body.type);
  if (!type) throw errors.validation(`Unknown message type: ${typeof body.type === 'string' ? body.type : String(body.type)}; expected initConnection, text, clear or closeConnection`);
  return { type, body };
}

/** The key an initConnection message carries (x_api_key, trimmed; undefined when absent or blank). */
export function initKey(body: Record<string, unknown>): string | undefined {
  return typeof body.x_api_key === 'string' && body.x_api_key.trim() !== '' ? body.x_api_key.trim() : undefined;
}

/** What an initConnection asks for, checked against initFields (40001), defaults applied. */
export type InitRequest = ReturnType<typeof parseInit>;

export function parseInit(body: Record<string, unknown>) {
  const f = validateFields(body, initFields);
  const format = outputFormat(f.output_format ?? `pcm_${DEFAULT_SAMPLE_RATE}`);
  return {
    textType: f.text_type,
    dictionaryLocators: parseDictionaryLocators(body.pronunciation_dictionary_locators),
    modelId: f.model_id, // undefined: the service's default model
    voiceId: f.voice_id,
    stability: f.voice_settings?.stability ?? 0.5,
    speed: f.voice_settings?.speed ?? 1,
    // The rate the audio is synthesized at (the format's, or the default rate to be resampled to it).
    sampleRate: synthesisRate(format),
    format,
  };
}

/** A text message, checked against textFields (40001). */
export function parseText(body: Record<string, unknown>) {
  const f = validateFields(body, textFields);
  return { text: f.text ?? '', flush: f.flush, tryTrigger: f.try_trigger_generation };
}

export const CONNECTION_INITIALIZED = JSON.stringify({ type: 'connectionInitialized' });

const AUDIO_HEAD = '{"audio":"';

/** An SSML <mark> reached in the audio: ms from the start of the piece's audio as played, as alignment's times. */
export interface Mark {
  name: string;
  timeMs: number;
}

/**
 * An audio message { audio, sampleRate, alignment?, marks?, isFinal? } written as bytes, exactly the
 * JSON text JSON.stringify gives, into a buffer of `buffers` when given (given back once written).
 */
export function audioMessage(pcm: Buffer | readonly Buffer[], sampleRate: number, alignment: Alignment | null, isFinal: boolean, buffers?: MessageBuffers, marks: readonly Mark[] = []): Buffer {
  const parts = Buffer.isBuffer(pcm) ? [pcm] : pcm;
  const pcmBytes = parts.reduce((n, p) => n + p.length, 0);
  // base64 of the parts one by one is the base64 of the whole only where each part but the last
  // is a whole number of 3-byte groups (200 ms chunks are); otherwise they are joined first.
  const whole = parts.every((p, i) => i === parts.length - 1 || p.length % 3 === 0) ? parts : [Buffer.concat(parts as Buffer[], pcmBytes)];
  const tail = `","sampleRate":${JSON.stringify(sampleRate)}${alignment ? `,"alignment":${JSON.stringify(alignment)}` : ''}${marks.length ? `,"marks":${JSON.stringify(marks)}` : ''}${isFinal ? ',"isFinal":true' : ''}}`;
  const bytes = AUDIO_HEAD.length + 4 * Math.ceil(pcmBytes / 3) + Buffer.byteLength(tail);
  const msg = buffers ? buffers.take(bytes) : Buffer.allocUnsafe(bytes);
  let at = msg.write(AUDIO_HEAD, 0, 'latin1');
  for (const part of whole) at += msg.write(part.toString('base64'), at, 'latin1');
  msg.write(tail, at, 'utf8');
  return msg;
}

/** The end of a flush with no audio left to carry it. */
export function emptyFinalMessage(sampleRate: number): string {
  return JSON.stringify({ audio: '', sampleRate, isFinal: true });
}

export function errorMessage(e: SawtError): string {
  return JSON.stringify({ type: 'error', errorCode: e.code, errorMessage: e.message, message: e.message });
}
