/**
 * Service contracts. Plugins implement these and register them under the tokens
 * in tokens.ts; nothing else in the codebase reaches into another plugin's code.
 * PostgreSQL, Redis-backed limits and further transports arrive as new plugins
 * implementing the same contracts.
 */
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { SawtError } from './errors.js';

// ---------- Runtime ----------

export interface RuntimeSettings {
  host: string;
  port: number;
  dataDir: string;
  /** SAWT_MODELS_DIR: the operator's model files, looked up first; `sawt models pull` writes here. */
  modelsDir: string;
  /** The installation's bundled `models/`, looked up after modelsDir (null: none; undefined: the default). */
  bundledModelsDir?: string | null;
  configPath: string;
  /** Directory the config file lives in; relative plugin paths resolve from here. */
  configDir: string;
  /** This machine's name among the nodes sharing a database (SAWT_NODE_ID, default the host name). */
  nodeId: string;
}

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

// ---------- Metrics ----------

export interface MetricsGaugeReading {
  labels: Record<string, string>;
  value: number;
}

/**
 * The service's Prometheus metrics (a core service, like the logger): transports
 * and plugins record what they see; GET /metrics renders it.
 */
export interface Metrics {
  /** One answered HTTP request; `route` is the route template (e.g. /api/v1/text-to-speech/:model_id), never the raw path. */
  observeRequest(r: { method: string; route: string; status: number; seconds: number }): void;
  /** Time to the first audio chunk of a synthesis; transport: 'http', 'ws', 'preview'. */
  observeFirstAudio(model: string, transport: string, seconds: number): void;
  /** A synthesis delivered in full: its characters, audio length and wall time (the real-time factor). */
  observeSynthesis(s: { model: string; transport: string; chars: number; audioSeconds: number; elapsedSeconds: number }): void;
  observeDenoise(audioSeconds: number, elapsedSeconds: number): void;
  /** An error answer sent to a client (errorCode), by transport ('http', 'ws'). */
  countRefusal(code: number, transport: string): void;
  /** A gauge read at scrape time (open reservations, live sessions, engine jobs…); adding a name again replaces it. */
  addGauge(g: { name: string; help: string; labelNames?: string[]; read: () => number | MetricsGaugeReading[] }): void;
  /** The Prometheus text exposition. */
  render(): Promise<{ contentType: string; body: string }>;
}

// ---------- Storage ----------

export interface Migration {
  /** Unique within the plugin; applied in the order given. */
  name: string;
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

export interface Database {
  readonly knex: Knex;
  /** 'sqlite3' (embedded) or 'pg'. Lets SQL that differs by dialect branch once. */
  readonly dialect: 'sqlite3' | 'pg';
  /** Called by plugins during register(); applied in registration order at storage start. */
  addMigrations(pluginId: string, migrations: Migration[]): void;
}

export interface BlobStore {
  put(key: string, data: Buffer | Readable): Promise<{ key: string; size: number }>;
  get(key: string): Promise<Readable>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Absolute path when the store is the local filesystem, else null. */
  localPath(key: string): string | null;
}

// ---------- Accounts & keys ----------

export const PLANS = ['free', 'basic', 'starter', 'growth', 'scale', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];
/** Concurrent synthesis requests per plan; null = unlimited. */
export const PLAN_CONCURRENCY: Record<Plan, number | null> = {
  free: 1, basic: 2, starter: 5, growth: 10, scale: 20, enterprise: null,
};

export const ENDPOINT_SCOPES = ['models', 'voices', 'tts', 'tts-ws', 'preview', 'clone', 'denoise'] as const;
export type EndpointScope = (typeof ENDPOINT_SCOPES)[number];

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  createdAt: string;
}

export interface AccountStore {
  /** Inside `trx` when given (e.g. the wallet opening the account with its balance). */
  create(input: { name: string; plan: Plan }, trx?: Knex): Promise<Account>;
  get(id: string): Promise<Account | null>;
  list(): Promise<Account[]>;
  grantModel(accountId: string, modelId: string): Promise<void>;
  modelGrants(accountId: string): Promise<string[]>;
  hasModelGrant(accountId: string, modelId: string): Promise<boolean>;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** First characters of the secret, safe to show (e.g. "sawt_ab12cd"). */
  prefix: string;
  /** null = every endpoint. */
  endpoints: EndpointScope[] | null;
  expiresAt: string | null;
  quotaChars: number | null;
  usedChars: number;
  revokedAt: string | null;
  createdAt: string;
}

export interface CreatedApiKey extends ApiKeyRecord {
  /** The secret; returned only at creation, stored only as a hash. */
  key: string;
}

export interface AuthContext {
  account: Account;
  key: ApiKeyRecord;
}

export interface ApiKeyStore {
  create(input: { accountId: string; endpoints?: EndpointScope[] | null; expiresAt?: string | null; quotaChars?: number | null }): Promise<CreatedApiKey>;
  get(id: string): Promise<ApiKeyRecord | null>;
  list(accountId?: string): Promise<ApiKeyRecord[]>;
  revoke(id: string): Promise<ApiKeyRecord>;
  /** Removes the key; later use of its secret fails with 40101. */
  delete(id: string): Promise<void>;
}

export interface Authenticator {
  /** Resolves a presented secret (undefined = none given). Throws SawtError 40101. */
  authenticate(secret: string | undefined): Promise<AuthContext>;
  /** Throws SawtError 40302 when the key may not call `scope`. */
  authorize(ctx: AuthContext, scope: EndpointScope): void;
  /**
   * Of the given key ids, those no longer valid (revoked, deleted or expired, in the
   * shared database: whichever node or CLI changed them), each with the 40101 error
   * a new request with it would get. Long-lived connections check their key with it.
   */
  invalidKeys?(keyIds: string[]): Promise<Map<string, SawtError>>;
}

// ---------- Billing & limits ----------

export interface WalletBalance {
  accountId: string;
  /** All amounts in integer micro-units. */
  balance: number;
  reserved: number;
  available: number;
}

export interface LedgerEntry {
  id: string;
  accountId: string;
  kind: 'topup' | 'reserve' | 'settle' | 'release' | 'adjust';
  amount: number;
  balanceAfter: number;
  requestId: string | null;
  reservationId: string | null;
  description: string | null;
  createdAt: string;
}

export interface WalletReservation {
  readonly id: string;
  readonly accountId: string;
  readonly amount: number;
  /**
   * Charges `amount` (≤ reserved; default all of it) and frees the rest; the key's
   * characters stay used. Idempotent. Conditional on the reservation still being
   * open: a late settle after its lease was swept charges nothing (see Wallet).
   */
  settle(amount?: number): Promise<void>;
  /** Frees the reservation and gives the key's characters back. Idempotent; no-op after settle. */
  release(reason: string): Promise<void>;
}

/** What a reservation also holds of the key's character quota (given back on release). */
export interface QuotaHold {
  keyId: string;
  chars: number;
}

export interface Wallet {
  balance(accountId: string): Promise<WalletBalance>;
  topUp(accountId: string, amountMicro: number, meta?: { requestId?: string; description?: string }): Promise<WalletBalance>;
  /**
   * Creates an account and its wallet with an opening balance (0 allowed) in one
   * transaction: either both exist afterwards or neither.
   */
  openAccount(input: { name: string; plan: Plan; balanceMicro: number; description?: string }): Promise<{ account: Account; balance: WalletBalance }>;
  /**
   * Atomically holds `amountMicro` and, with `quota`, the key's characters, in one
   * transaction: throws SawtError 42903 when the quota would be passed, 40201 when
   * the available balance is short. The reservation is leased to this process
   * (owner + expiry, renewed by heartbeat); a dead owner's reservations are
   * released by the survivors.
   */
  reserve(accountId: string, amountMicro: number, meta: { requestId: string; description?: string; quota?: QuotaHold }): Promise<WalletReservation>;
  /** Newest first. */
  ledger(accountId: string, opts?: { limit?: number }): Promise<LedgerEntry[]>;
}

export interface ConcurrencySlot {
  release(): void;
}

export interface ConcurrencyLimiter {
  /** Takes a slot for the account or throws SawtError 42901 (limit null = unlimited). */
  acquire(accountId: string, limit: number | null): Promise<ConcurrencySlot>;
  inFlight(accountId: string): Promise<number>;
}

export interface RateLimiter {
  /** Counts one request for the key; throws SawtError 42902 with Retry-After when over the window's budget. */
  hit(keyId: string): Promise<void>;
}

/**
 * Limits shared by every node of a cluster (the Redis plugin): billing uses these
 * instead of its in-process limiter and counter when a plugin provides them.
 */
export interface SharedLimits {
  /** The plan concurrency limiter: slots are leases that a dead node's heartbeat stops renewing. */
  readonly concurrency: ConcurrencyLimiter;
  /** A per-key limiter of `max` requests in any sliding window of `windowMs` (0 = unlimited). */
  rateLimiter(settings: { windowMs: number; max: number }): RateLimiter;
}

/**
 * The per-key character quota (api_keys.used_chars, owned by auth). Both calls run
 * inside the caller's transaction (`trx`, the wallet's reservation), so characters
 * are taken and given back together with the money they pay for.
 */
export interface CharacterQuota {
  /** Takes `chars` in one conditional write; throws SawtError 42903 when it would pass the quota, 40101 for a deleted key. */
  take(trx: Knex, keyId: string, chars: number): Promise<void>;
  /** Gives `chars` back (never below zero). */
  giveBack(trx: Knex, keyId: string, chars: number): Promise<void>;
}

/** One paid unit of synthesis work: quota, concurrency slot and money, taken together and given back together. */
export interface Admission {
  readonly requestId: string;
  readonly costMicro: number;
  /** Charge the reservation (default: the full cost) and free the slot. Idempotent. */
  settle(costMicro?: number): Promise<void>;
  /** Free everything without charging. Idempotent; no-op after settle. */
  release(reason: string): Promise<void>;
}

export interface AdmissionControl {
  /**
   * Admits a synthesis of `chars` characters costing `costMicro`: checks the key's
   * quota (42903), the plan's concurrency (42901) and reserves the money (40201),
   * undoing what it took if a later step fails.
   */
  admit(input: { auth: AuthContext; requestId: string; chars: number; costMicro: number; description: string; concurrency?: boolean }): Promise<Admission>;
  /** Releases every open admission (graceful shutdown). */
  releaseAll(reason: string): Promise<void>;
}

// ---------- Models, voices, synthesis ----------

export interface ModelInfo {
  /** Stable UUID of the record. */
  id: string;
  model_id: string;
  model_name: string;
  description: string | null;
  engine: string;
  /** Decimal cost per character, as configured. */
  cost_per_char: number;
  costPerCharMicro: number;
  /** 'public': every account; 'granted': only accounts granted it. */
  access: 'public' | 'granted';
  /** False when the model's files are missing; unavailable models are not listed by GET /models. */
  available: boolean;
  /** Files `sawt models pull` can fetch into SAWT_MODELS_DIR for this model. */
  downloads: ModelDownload[];
}

export interface ModelDownload {
  /** Path in the models layout (relative to SAWT_MODELS_DIR). */
  file: string;
  url: string;
  sha256: string;
}

/** The values the interface gives a voice's gender, age and type; null besides means unknown. */
export const VOICE_GENDERS = ['male', 'female'] as const;
export const VOICE_AGES = ['middle', 'elderly'] as const;
export const VOICE_TYPES = ['neural'] as const;
/**
 * A named set of model files: a catalog model or a part of the front end (the
 * diacritizer). `sawt models pull NAME` fetches its downloads; `sawt models verify`
 * checks every installed file against their sha256.
 */
export interface ModelPart {
  name: string;
  /** Files the part needs (models layout). */
  files: string[];
  downloads: ModelDownload[];
}

/** A voice as the API lists it (interface: Voice). */
export interface VoiceInfo {
  voice_id: string;
  name: string;
  description: string | null;
  gender: string | null;
  age: string | null;
  languages: string[];
  dialect: string[];
  type: string | null;
  sample_url: string;
}

export interface ModelCatalog {
  list(): ModelInfo[];
  get(modelId: string): ModelInfo | undefined;
  defaultModelId(): string;
  /** Every catalog model and front-end part with its files and downloads. */
  parts(): ModelPart[];
}

export interface VoiceCatalog {
  /** Voices the account can use; sample URLs are relative paths (the transport makes them absolute). */
  list(accountId: string): Promise<VoiceInfo[]>;
  get(voiceId: string, accountId: string): Promise<VoiceInfo | undefined>;
  /** model_ids a built-in voice works with (undefined: every model, or not a built-in voice). */
  modelsFor?(voiceId: string): string[] | undefined;
}

export interface SynthesisRequest {
  modelId: string;
  voiceId: string;
  accountId: string;
  text: string;
  /** 0.7–1.2 */
  speed: number;
  /** 0–1 */
  stability: number;
  /** Output sample rate; default 24000. */
  sampleRate?: number;
  requestId?: string;
}

/** Where a word starts in the text and in the audio of the chunk that carries it. */
export interface WordTiming {
  /** Start of the word in the segment text, in UTF-16 code units (JS string index). */
  textOffset: number;
  /** Length of the word in UTF-16 code units. */
  length: number;
  /** When the word starts, in ms from the start of the chunk that carries it. */
  audioMs: number;
}

/** What the engine reports about one chunk of audio. */
export interface ChunkInfo {
  /** The text segment (usually a sentence) the chunk belongs to, from 0. */
  segment: number;
  /** True on the last chunk of its segment. */
  segmentEnd: boolean;
  /** Samples in the chunk (pcm.length / 2). */
  samples: number;
  words: WordTiming[];
}

/** One chunk of a speech stream: PCM16LE mono at the stream's rate, and what the engine says of it. */
export interface SpeechChunk {
  pcm: Buffer;
  info: ChunkInfo;
}

/**
 * An object-mode stream of SpeechChunk, chunk by chunk as the audio is generated; its end is the
 * end of the speech. Destroying it cancels the synthesis.
 */
export type SpeechStream = Readable;

export interface SpeechSynthesizer {
  /** Validates (40001/40401) and starts synthesis; audio flows as it is generated. */
  synthesize(request: SynthesisRequest): Promise<SpeechStream>;
}

// ---------- HTTP ----------

export interface HttpRouteSpec {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** Path below /api/v1, e.g. '/models'. */
  path: string;
  summary: string;
  /** Endpoint scope a key needs; null = no authentication. */
  scope: EndpointScope | null;
  /** OpenAPI fragments. */
  requestBody?: Record<string, unknown>;
  parameters?: Array<Record<string, unknown>>;
  responses: Record<string, unknown>;
}

/** Operator-visible stages of the Arabic text front end (`sawt text …`). */
export type TextStageName = 'normalize' | 'diacritize' | 'phonemize';

export interface TextPipelineOptions {
  /** Dialect whose lexicon and phoneme rules apply (e.g. 'egyptian'); null or absent: none. */
  dialect?: string | null;
  /**
   * The model whose phones 'phonemize' gives (a model_id): an HTS model gives its voice's phone
   * names, space-separated, after the dialect's HTS rules; null or absent: espeak-ng mnemonics.
   */
  model?: string | null;
}

/**
 * The text front end, stage by stage: each stage runs every stage before it.
 * 'phonemize' returns espeak-ng phoneme mnemonics in [[ ]] (after dialect rules), or with
 * `model` that model's phones.
 */
export interface TextPipeline {
  readonly stages: readonly TextStageName[];
  /** Dialects with a rules file. */
  dialects(): string[];
  run(stage: TextStageName, text: string, opts?: TextPipelineOptions): Promise<string>;
  /** run() over many texts at once, in order; model stages batch across them (corpus work). */
  runMany(stage: TextStageName, texts: string[], opts?: TextPipelineOptions): Promise<string[]>;
}

// ---------- Voice cloning ----------

/** A cloned voice as the clone endpoint returns it (interface: Cloned voice record). */
export interface ClonedVoiceRecord extends VoiceInfo {
  id: string;
  avatar_url: string | null;
  stability: number;
}

/** Analysis of a reference recording, opaque to transports (versioned JSON, stored with the voice). */
export interface VoiceProfile {
  version: number;
  [key: string]: unknown;
}

export interface VoiceCloning {
  /** Analyzes PCM16LE mono at 24000 Hz; 40001 when it holds too little voiced speech. */
  analyze(pcm: Buffer): Promise<VoiceProfile>;
  /** Base voice speech converted toward the profile, streamed (PCM16LE mono 24000 Hz), 0 ≤ similarity ≤ 1. */
  preview(input: { profile: VoiceProfile; modelId: string; accountId: string; text: string; speed: number; similarity: number; requestId?: string }): Promise<SpeechStream>;
  /** Remembers the settings of a preview of a reference (by its sha256) so that cloning it keeps them. */
  rememberPreview(input: { accountId: string; referenceSha256: string; similarity: number; speed: number }): Promise<void>;
  /** Stores the voice (profile, reference bytes, sample audio) and returns its record with a relative sample_url. */
  create(input: {
    accountId: string; modelId: string; name: string; description: string | null; gender: string | null; age: string | null;
    languages: string[]; dialect: string[]; avatarUrl: string | null; stability: number; text: string;
    profile: VoiceProfile; referenceFile: string; referenceSha256: string; samplePcm: Buffer;
  }): Promise<ClonedVoiceRecord>;
  /**
   * The stored sample of a cloned voice as WAV, or null when `voiceId` is no cloned voice
   * (or, with `accountId`, none of that account's).
   */
  sampleWav(voiceId: string, accountId?: string): Promise<Buffer | null>;
  /** Whether `voiceId` names a cloned voice (of any account): its sample is then private. */
  isCloneId(voiceId: string): boolean;
  /** Cloned voices of an account (every account's when omitted), oldest first. */
  list(accountId?: string): Promise<Array<ClonedVoiceRecord & { account_id: string; created_at: string }>>;
  /** How many cloned voices the account holds. */
  count(accountId: string): Promise<number>;
  /** Removes a cloned voice (record and stored files); with `accountId`, only that account's. False when there was none. */
  delete(voiceId: string, accountId?: string): Promise<boolean>;
}
