import { createHash } from 'node:crypto';
import { ESPEAK_RATE_RANGE } from '@sawt/native';
import { toMicro, VOICE_AGES, VOICE_GENDERS, VOICE_TYPES, type FromSchema, type ModelFiles, type ModelCatalog, type ModelInfo, type ModelPart, type VoiceCatalog, type VoiceInfo } from '@sawt/core';

/** A model file to fetch (`sawt models pull`): its path in the models layout, URL and sha256. */
export const downloadSchema = {
  type: 'object',
  required: ['file', 'url', 'sha256'],
  properties: { file: { type: 'string' }, url: { type: 'string' }, sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
} as const;

/** A model as configured (engine plugin options.models). */
export const modelSchema = {
  type: 'object',
  required: ['model_id', 'model_name', 'engine', 'cost_per_char'],
  properties: {
    model_id: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' },
    model_name: { type: 'string' },
    description: { type: ['string', 'null'] },
    engine: { type: 'string' },
    cost_per_char: { type: ['number', 'string'] },
    // Seconds of audio per character at speed 1.0 (measured; see config/default.json): the output-cap estimate.
    seconds_per_char: { type: 'number', exclusiveMinimum: 0 },
    // How seconds_per_char was measured (a comment: JSON has none).
    seconds_per_char_note: { type: 'string' },
    access: { enum: ['public', 'granted'], default: 'public' },
    // Files (models layout: SAWT_MODELS_DIR, then the bundled models/) the model needs; the model is listed only when all exist.
    files: { type: 'array', items: { type: 'string' } },
    // Where `sawt models pull` fetches the files from, with their sha256.
    downloads: { type: 'array', items: downloadSchema },
    // The model wants diacritized input (default true): the diacritizer adds missing marks.
    diacritize: { type: 'boolean' },
    // The voice a client gets first for this model (GET /models default_voice_id); default: the first voice that speaks on it.
    default_voice_id: { type: 'string' },
  },
} as const;

export type ModelConfig = FromSchema<typeof modelSchema>;

/** espeak-ng parameters of a built-in voice: pitch 0–100, rate in words per minute at speed 1.0, pitch range 0–100 at stability 0.5. */
const espeakSchema = {
  type: 'object',
  required: ['voice', 'pitch', 'rate', 'range'],
  properties: {
    voice: { type: 'string' },
    pitch: { type: 'number', minimum: 0, maximum: 100 },
    rate: { type: 'number', minimum: ESPEAK_RATE_RANGE.min, maximum: ESPEAK_RATE_RANGE.max },
    range: { type: 'number', minimum: 0, maximum: 100 },
  },
} as const;

/** A voice of a Piper model (engine `piper`): its speaker and, optionally, its own inference scales. */
const piperSchema = {
  type: 'object',
  properties: {
    // Multi-speaker voices: a name from the config's speaker_id_map, or a speaker id.
    speaker: { type: ['string', 'integer'] },
    // Default: the config's `inference` values.
    noiseScale: { type: 'number', minimum: 0, maximum: 10 },
    lengthScale: { type: 'number', minimum: 0.05, maximum: 20 },
    noiseW: { type: 'number', minimum: 0, maximum: 10 },
  },
} as const;

/** HTS parameter transforms of a built-in voice (derived from the one HMM voice). */
const htsSchema = {
  type: 'object',
  properties: {
    // Additive half-tones on log F0.
    halfTone: { type: 'number', minimum: -24, maximum: 24 },
    // Scale of log F0 around its mean at stability 0.5 (1 = as trained).
    f0Spread: { type: 'number', minimum: 0, maximum: 4 },
    // All-pass constant (0.55 trained; lower = shorter vocal tract, brighter).
    alpha: { type: 'number', minimum: 0, maximum: 0.95 },
    // Duration scale at speed 1.0 (>1 faster).
    speed: { type: 'number', minimum: 0.25, maximum: 4 },
  },
} as const;

/** A built-in voice as configured (engine plugin options.voices). */
export const voiceSchema = {
  type: 'object',
  required: ['voice_id', 'name', 'languages', 'dialect'],
  properties: {
    voice_id: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    gender: { enum: [...VOICE_GENDERS, null] },
    age: { enum: [...VOICE_AGES, null] },
    languages: { type: 'array', items: { type: 'string' } },
    dialect: { type: 'array', items: { type: 'string' } },
    type: { enum: [...VOICE_TYPES, null] },
    // model_ids this voice works with; absent = every model whose engine has the voice's parameters.
    models: { type: 'array', items: { type: 'string' } },
    espeak: espeakSchema,
    piper: piperSchema,
    hts: htsSchema,
  },
} as const;

export type PiperVoiceParams = FromSchema<typeof piperSchema>;
/** The configured transforms, and a mel-cepstral offset that only cloned voices derive (never configured). */
export type HtsVoiceParams = FromSchema<typeof htsSchema> & {
  /** Added to every generated mel-cepstrum frame (a smooth spectral EQ; cloned voices). */
  mgcOffset?: number[];
};
export type VoiceConfig = Omit<FromSchema<typeof voiceSchema>, 'hts'> & { hts?: HtsVoiceParams };

/** Stable UUID (name-based, v5 layout) so a model keeps its id across restarts and instances. */
export function stableUuid(name: string): string {
  const h = createHash('sha1').update(`sawt-model:${name}`).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export class ConfiguredModelCatalog implements ModelCatalog {
  private readonly models: ModelInfo[];
  private readonly extraParts: ModelPart[] = [];

  constructor(private readonly configs: ModelConfig[], private readonly files: ModelFiles, private readonly defaultId: string) {
    this.models = configs.map((c) => this.info(c));
    if (!this.models.some((m) => m.model_id === defaultId)) {
      throw new Error(`defaultModel '${defaultId}' is not in the model catalog`);
    }
  }

  private info(c: ModelConfig): ModelInfo {
    return {
      id: stableUuid(c.model_id),
      model_id: c.model_id,
      model_name: c.model_name,
      description: c.description ?? null,
      engine: c.engine,
      cost_per_char: Number(c.cost_per_char),
      costPerCharMicro: toMicro(c.cost_per_char),
      secondsPerChar: c.seconds_per_char ?? null,
      access: c.access ?? 'public',
      available: this.files.missing(c.files ?? []).length === 0,
      downloads: c.downloads ?? [],
    };
  }

  /** Adds the models a plugin's back end brings; a model_id taken already is a start-up Error. */
  add(configs: ModelConfig[]): void {
    for (const c of configs) {
      if (this.get(c.model_id)) throw new Error(`model '${c.model_id}' is in the catalog already`);
      this.configs.push(c);
      this.models.push(this.info(c));
    }
  }

  list(): ModelInfo[] {
    return this.models;
  }

  get(modelId: string): ModelInfo | undefined {
    return this.models.find((m) => m.model_id === modelId);
  }

  defaultModelId(): string {
    return this.defaultId;
  }

  parts(): ModelPart[] {
    return [...this.configs.map((c) => ({ name: c.model_id, files: c.files ?? [], downloads: c.downloads ?? [] })), ...this.extraParts];
  }

  /** Adds a part that is not a listed model (the diacritizer). */
  addPart(part: ModelPart): void {
    this.extraParts.push(part);
  }

  /** Whether the model wants diacritized input (its `diacritize` setting, default true). */
  wantsDiacritics(modelId: string): boolean {
    return this.configs.find((c) => c.model_id === modelId)?.diacritize !== false;
  }

  /** Sets each model's default voice: its default_voice_id when that voice speaks on it, else the first that does. */
  resolveDefaultVoices(voices: BuiltinVoiceCatalog, warn: (modelId: string, voiceId: string, own: string[]) => void = () => {}): void {
    for (const m of this.models) {
      const own = voices.voicesOf(m.model_id).map((v) => v.voice_id);
      const wanted = this.configs.find((c) => c.model_id === m.model_id)?.default_voice_id;
      if (wanted !== undefined && m.available && !own.includes(wanted)) warn(m.model_id, wanted, own);
      m.default_voice_id = wanted !== undefined && (own.includes(wanted) || !m.available) ? wanted : own[0] ?? null;
    }
  }

  /** Appends a note to a model's description (e.g. that an optional file is missing). */
  addNote(modelId: string, note: string): void {
    const m = this.get(modelId);
    if (m) m.description = m.description ? `${m.description} ${note}` : note;
  }
}

export const samplePath = (voiceId: string) => `/api/v1/voices/${encodeURIComponent(voiceId)}/sample`;

export class BuiltinVoiceCatalog implements VoiceCatalog {
  private readonly voices: VoiceConfig[] = [];

  /** @param speaksOn the offered model_ids a voice speaks on (see index.ts). */
  constructor(private readonly speaksOn: (v: VoiceConfig) => string[]) {}

  config(voiceId: string): VoiceConfig | undefined {
    return this.voices.find((v) => v.voice_id === voiceId);
  }

  /** Adds the voices a plugin's back end brings; a voice_id taken already is a start-up Error. */
  add(voices: VoiceConfig[]): void {
    for (const v of voices) {
      if (this.config(v.voice_id)) throw new Error(`voice '${v.voice_id}' is in the catalog already`);
      this.voices.push(v);
    }
  }

  private toInfo(v: VoiceConfig): VoiceInfo {
    return {
      voice_id: v.voice_id,
      name: v.name,
      description: v.description ?? null,
      gender: v.gender ?? null,
      age: v.age ?? null,
      languages: v.languages ?? [],
      dialect: v.dialect ?? [],
      type: v.type ?? null,
      sample_url: samplePath(v.voice_id),
      models: this.speaksOn(v),
    };
  }

  async list(_accountId: string): Promise<VoiceInfo[]> {
    return this.voices.map((v) => this.toInfo(v));
  }

  async get(voiceId: string, _accountId: string): Promise<VoiceInfo | undefined> {
    const v = this.config(voiceId);
    return v && this.toInfo(v);
  }

  modelsFor(voiceId: string): string[] | undefined {
    const v = this.config(voiceId);
    return v && this.speaksOn(v);
  }

  /** The built-in voices that speak on `modelId`, in configured order. */
  voicesOf(modelId: string): VoiceConfig[] {
    return this.voices.filter((v) => this.speaksOn(v).includes(modelId));
  }
}
