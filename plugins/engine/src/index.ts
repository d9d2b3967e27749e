import { definePlugin, tokens, type ModelCatalog, type SpeechSynthesizer, type VoiceCatalog } from '@sawt/core';
import { BuiltinVoiceCatalog, ConfiguredModelCatalog, type ModelConfig, type VoiceConfig } from './catalog.js';
import { EspeakBackend } from './backends.js';
import { TextFrontEnd } from './frontend/index.js';
import { EngineSynthesizer } from './synthesizer.js';
import { phonemize } from './native/index.js';

export interface EngineOptions {
  defaultModel: string;
  executionProvider: 'cpu' | 'cuda';
  chunkMs: number;
  segment: { maxChars: number; firstMaxChars: number };
  models: ModelConfig[];
  voices: VoiceConfig[];
}

const voiceSchema = {
  type: 'object',
  required: ['voice_id', 'name', 'languages', 'dialect'],
  properties: {
    voice_id: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    gender: { enum: ['male', 'female', null] },
    age: { type: ['string', 'null'] },
    languages: { type: 'array', items: { type: 'string' } },
    dialect: { type: 'array', items: { type: 'string' } },
    type: { type: ['string', 'null'] },
    models: { type: 'array', items: { type: 'string' } },
    espeak: {
      type: 'object',
      required: ['voice', 'pitch', 'rate', 'range'],
      properties: {
        voice: { type: 'string' },
        pitch: { type: 'number', minimum: 0, maximum: 100 },
        rate: { type: 'number', minimum: 80, maximum: 450 },
        range: { type: 'number', minimum: 0, maximum: 100 },
      },
    },
  },
};

export default definePlugin<EngineOptions>({
  id: 'engine',
  provides: [tokens.models, tokens.voices, tokens.synthesizer],
  consumes: [tokens.logger, tokens.runtime],
  configSchema: {
    type: 'object',
    required: ['models', 'voices'],
    properties: {
      defaultModel: { type: 'string', default: 'sawt-mini' },
      executionProvider: { enum: ['cpu', 'cuda'], default: 'cpu' },
      // Measured: 200 ms pieces bring the first audio of a 200-character text from
      // ~17 ms (whole first sentence) to ~1 ms after synthesis starts.
      chunkMs: { type: 'integer', minimum: 0, maximum: 5000, default: 200 },
      segment: {
        type: 'object',
        default: {},
        properties: {
          maxChars: { type: 'integer', minimum: 20, default: 240 },
          firstMaxChars: { type: 'integer', minimum: 10, default: 120 },
        },
      },
      models: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['model_id', 'model_name', 'engine', 'cost_per_char'],
          properties: {
            model_id: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' },
            model_name: { type: 'string' },
            description: { type: ['string', 'null'] },
            engine: { type: 'string' },
            cost_per_char: { type: ['number', 'string'] },
            access: { enum: ['public', 'granted'], default: 'public' },
            files: { type: 'array', items: { type: 'string' } },
            downloads: {
              type: 'array',
              items: {
                type: 'object',
                required: ['file', 'url', 'sha256'],
                properties: { file: { type: 'string' }, url: { type: 'string' }, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
              },
            },
          },
        },
      },
      voices: { type: 'array', minItems: 1, items: voiceSchema },
    },
  },
  register(ctx) {
    const { options, runtime } = ctx;
    const models = new ConfiguredModelCatalog(options.models, runtime.modelsDir, options.defaultModel);
    const voices = new BuiltinVoiceCatalog(options.voices);
    const backends = [new EspeakBackend(options.chunkMs)];
    for (const m of models.list()) {
      if (!backends.some((b) => b.engine === m.engine)) throw new Error(`model '${m.model_id}' names engine '${m.engine}', which this build does not have (known: ${backends.map((b) => b.engine).join(', ')})`);
      if (!m.available) ctx.logger.warn({ model: m.model_id }, 'model files missing in SAWT_MODELS_DIR; model not offered');
    }
    const frontEnd = new TextFrontEnd(options.segment);
    ctx.provide<ModelCatalog>(tokens.models, models);
    ctx.provide<VoiceCatalog>(tokens.voices, voices);
    ctx.provide<SpeechSynthesizer>(tokens.synthesizer, new EngineSynthesizer(models, voices, frontEnd, ctx.logger, backends));
  },
  async start() {
    // espeak-ng loads its Arabic data on first use (~13 ms): pay that at boot, not on the first request.
    await phonemize('مرحبا', 'ar');
  },
});

export { TextFrontEnd } from './frontend/index.js';
export { segmentText } from './frontend/segment.js';
export { normalizeText } from './frontend/normalize.js';
export { stableUuid } from './catalog.js';
export * from './native/index.js';
