/**
 * The WebSocket protocol: the client messages (their field rules, parsed and checked) and the
 * server's messages and close codes. No I/O here.
 */
import type { IncomingMessage } from 'node:http';
import { defineFields, errors, presentedKey, validateFields, type SawtError } from '@sawt/core';

/** Sample rates a client may ask for (initConnection output_format). */
export const OUTPUT_FORMATS = ['pcm_8000', 'pcm_16000', 'pcm_22050', 'pcm_24000'] as const;

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
  output_format: { type: 'string', enum: OUTPUT_FORMATS, description: 'PCM16 mono at this sample rate (resampled server-side); default pcm_24000. Audio messages state it in sampleRate.' },
  x_api_key: { type: 'string', description: 'The API key, when it is not given in the x-api-key query parameter or header.' },
});

export const textFields = defineFields({
  text: { type: 'string', required: false, description: 'Text chunk to add to the buffer. Generation starts at a sentence end or once the buffer is long enough (50, then 120, then 200 characters).' },
  flush: { type: 'boolean', default: false, description: 'Generate everything buffered now; the text received since the previous flush must have at least 3 words and 10 characters (else error 40001). The last audio message of a flush carries isFinal: true.' },
  try_trigger_generation: { type: 'boolean', default: false, description: 'Start generating the buffered whole words now when they are at least 20 characters, without waiting for a sentence end.' },
});

/** Close codes the server uses. */
export const CLOSE = {
  normal: 1000,
  shutdown: 1001,
  policy: 1008,
} as const;

/** A client message by its type; `body` is the whole JSON object, validated once the session may act on it. */
export type ClientMessage =
  | { type: 'initConnection'; body: Record<string, unknown> }
  | { type: 'text'; body: Record<string, unknown> }
  | { type: 'clear' }
  | { type: 'closeConnection' };

/** A message's text as received: null for a binary one. 40001 unless it is a JSON object of a known type. */
export function parseClientMessage(raw: string | null): ClientMessage {
  let msg: unknown;
  try {
    if (raw === null) throw new Error('binary');
    msg = JSON.parse(raw);
  } catch {
    throw errors.validation('Messages must be JSON text');
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) throw errors.validation('Messages must be JSON objects');
  const body = msg as Record<string, unknown>;
  switch (body.type) {
    case 'initConnection':
    case 'text':
      return { type: body.type, body };
    case 'clear':
    case 'closeConnection':
      return { type: body.type };
    default:
      throw errors.validation(`Unknown message type: ${typeof body.type === 'string' ? body.type : String(body.type)}; expected initConnection, text, clear or closeConnection`);
  }
}

/** The key an initConnection message carries (x_api_key, trimmed; undefined when absent or blank). */
export function initKey(body: Record<string, unknown>): string | undefined {
  return typeof body.x_api_key === 'string' && body.x_api_key.trim() !== '' ? body.x_api_key.trim() : undefined;
}

/** What an initConnection asks for, checked against initFields (40001), defaults applied. */
export interface InitRequest {
  /** undefined: the service's default model. */
  modelId: string | undefined;
  voiceId: string;
  stability: number;
  speed: number;
  sampleRate: number;
}

export function parseInit(body: Record<string, unknown>): InitRequest {
  const f = validateFields(body, initFields);
  return {
    modelId: f.model_id,
    voiceId: f.voice_id,
    stability: f.voice_settings?.stability ?? 0.5,
    speed: f.voice_settings?.speed ?? 1,
    sampleRate: Number((f.output_format ?? 'pcm_24000').slice(4)),
  };
}

/** A text message, checked against textFields (40001). */
export interface TextRequest {
  text: string;
  flush: boolean;
  tryTrigger: boolean;
}

export function parseText(body: Record<string, unknown>): TextRequest {
  const f = validateFields(body, textFields);
  return { text: f.text ?? '', flush: f.flush, tryTrigger: f.try_trigger_generation };
}

/** Per-character timings of an audio message, from the start of the piece's audio. */
export interface Alignment {
  chars: string[];
  charStartTimesMs: number[];
  charDurationsMs: number[];
}

export const CONNECTION_INITIALIZED = JSON.stringify({ type: 'connectionInitialized' });

/** An audio message: base64 PCM16, its rate, the alignment of its words (if any), isFinal on the last of a flush. */
export function audioMessage(pcm: Buffer, sampleRate: number, alignment: Alignment | null, isFinal: boolean): string {
  // JSON.stringify({ audio, sampleRate, alignment?, isFinal? }) written out (the same bytes): base64
  // needs no escaping, and stringify copied and scanned the ~13 kB of every message once more.
  return `{"audio":"${pcm.toString('base64')}","sampleRate":${JSON.stringify(sampleRate)}${alignment ? `,"alignment":${JSON.stringify(alignment)}` : ''}${isFinal ? ',"isFinal":true' : ''}}`;
}

/** The end of a flush with no audio left to carry it. */
export function emptyFinalMessage(sampleRate: number): string {
  return JSON.stringify({ audio: '', sampleRate, isFinal: true });
}

export function errorMessage(e: SawtError): string {
  return JSON.stringify({ type: 'error', errorCode: e.code, errorMessage: e.message, message: e.message });
}

/** The key of an upgrade request: the x-api-key query parameter, then the headers (core rule). */
export function upgradeKey(req: IncomingMessage, url: URL): string | undefined {
  return presentedKey(req.headers, url.searchParams.get('x-api-key'));
}
