/** transport-http's options: their schema (validated at boot, defaults applied) and the type it gives. */
import { PLANS, type FromSchema, type Plan } from '@sawt/core';
import { corsSchema } from './cors.js';
import { metricsSchema } from './metrics-endpoint.js';

/** Cloned voices an account may hold, by plan (option maxClonedVoices). */
export const DEFAULT_CLONE_LIMITS: Record<Plan, number | null> = { free: 3, basic: 10, starter: 25, growth: 50, scale: 100, enterprise: null };

/** OpenAI's speech models → Sawt models, the first one offered wins (README, OpenAI-compatible API). */
export const DEFAULT_OPENAI_MODELS: Record<string, string[]> = { 'tts-1': ['sawt-hts'], 'tts-1-hd': ['sawt-neural', 'sawt-hts'], 'gpt-4o-mini-tts': ['sawt-hts'], 'gpt-4o-mini-tts-2025-12-15': ['sawt-hts'] };
/** OpenAI's voices → Sawt personas: male voices to male personas, female to female. */
export const DEFAULT_OPENAI_VOICES: Record<string, string> = {
  alloy: 'fusha-layla', coral: 'egyptian-nour', nova: 'emirati-mariam', sage: 'najdi-noura', shimmer: 'hijazi-reem', marin: 'kuwaiti-dana',
  ash: 'fusha-omar', ballad: 'egyptian-karim', echo: 'emirati-hamdan', fable: 'najdi-faisal', onyx: 'hijazi-yousef', verse: 'kuwaiti-bader', cedar: 'fusha-sami',
};

const planLimit = { type: ['integer', 'null'], minimum: 0 } as const;

export const httpConfigSchema = {
  type: 'object',
  properties: {
    bodyLimit: { type: 'integer', minimum: 1024, default: 1048576 },
    maxTextChars: { type: 'integer', minimum: 10, default: 5000 },
    maxOutputSeconds: { type: 'number', exclusiveMinimum: 0, default: 900, description: 'Longest audio one text-to-speech or preview request may produce; longer: 400 (40001) naming the limit' },
    shutdownGraceMs: { type: 'integer', minimum: 0, default: 10000 },
    headersTimeoutMs: { type: 'integer', minimum: 100, default: 10000, description: 'A request whose headers have not all arrived this long after the connection opened (or the previous request ended) is answered 408 (40801) and closed' },
    minBodyRate: {
      type: 'object',
      description: 'A request body slower than bytesPerSecond on average, judged once graceMs have passed, is cut with 408 (40801); 0 bytesPerSecond: no minimum',
      properties: { bytesPerSecond: { type: 'integer', minimum: 0, default: 16384 }, graceMs: { type: 'integer', minimum: 100, default: 10000 } },
      additionalProperties: false,
      default: { bytesPerSecond: 16384, graceMs: 10000 },
    },
    maxConnectionsPerAddress: { type: 'integer', minimum: 0, default: 256, description: 'Open HTTP connections one client address may hold over the whole server (0: no limit); over it: 429 (42901) and closed. The address is the peer (a proxy) unless trustProxy is set; then requests in flight count for the forwarded client address' },
    maxUploadBytes: { type: 'integer', minimum: 1024, default: 104857600 },
    ffmpegPath: { type: 'string', default: 'ffmpeg' },
    ffprobePath: { type: 'string', default: 'ffprobe' },
    maxClonedVoices: {
      type: 'object',
      description: 'Cloned voices an account of each plan may hold (null: no limit); cloning past it gives 400 (40001)',
      properties: Object.fromEntries(PLANS.map((p) => [p, planLimit])) as { [P in Plan]: typeof planLimit },
      additionalProperties: false,
      default: DEFAULT_CLONE_LIMITS,
    },
    // Which peers may set X-Forwarded-Proto/-Host/-For (fastify's trustProxy): false (default: none),
    // true (any), or addresses / CIDRs ("127.0.0.1,10.0.0.0/8" or a list).
    trustProxy: {
      anyOf: [{ type: 'boolean' }, { type: 'string', minLength: 1 }, { type: 'array', items: { type: 'string', minLength: 1 } }],
      default: false,
    },
    // Browser pages allowed to call the API (off unless origins are listed).
    cors: corsSchema,
    // Serve the web playground at /playground.
    playground: { type: 'boolean', default: true },
    publicUrl: {
      type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#]+(/[^?#]*)?$',
      description: 'The absolute URL clients reach the server at (e.g. https://api.example.com, or https://example.com/sawt behind a proxy): the server URL of the OpenAPI and AsyncAPI documents. Default: as each client reached it.',
    },
    metrics: metricsSchema,
    openai: {
      type: 'object',
      description: 'The OpenAI-compatible API (/v1): OpenAI model names → Sawt model ids (the first one offered wins), OpenAI voice names → Sawt voice ids',
      properties: {
        models: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 }, default: DEFAULT_OPENAI_MODELS },
        voices: { type: 'object', additionalProperties: { type: 'string', minLength: 1 }, default: DEFAULT_OPENAI_VOICES },
      },
      additionalProperties: false,
      default: { models: DEFAULT_OPENAI_MODELS, voices: DEFAULT_OPENAI_VOICES },
    },
  },
} as const;

export type HttpOptions = FromSchema<typeof httpConfigSchema>;
