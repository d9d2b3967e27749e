/** Typed service tokens: the one place where service identities are declared. */
import type * as S from './services/index.js';
import type { HttpRoutes, ScopeRegistry } from './http-routes.js';

export interface ServiceRef<T> {
  readonly id: string;
  readonly symbol: symbol;
  /** Phantom field carrying the service type; never set. */
  readonly __type?: T;
}

export function createServiceRef<T>(id: string): ServiceRef<T> {
  return Object.freeze({ id, symbol: Symbol.for(`sawt:${id}`) });
}

export const tokens = {
  runtime: createServiceRef<S.RuntimeSettings>('core.runtime'),
  logger: createServiceRef<S.Logger>('core.logger'),
  /** Prometheus metrics of this app (core registers it, like runtime and logger). */
  metrics: createServiceRef<S.Metrics>('core.metrics'),
  /** This process's temporary folder (uploads, spooled audio), removed at stop and swept after a crash. */
  workDir: createServiceRef<import('./work-dir.js').WorkDir>('core.workDir'),
  /** Time for TTLs, rate windows and timeouts (core registers it: systemClock, or createSawt's `clock` in tests). */
  clock: createServiceRef<import('./clock.js').Clock>('core.clock'),
  /** The scopes the configured plugins declare in their manifests (API keys are restricted to them). */
  scopes: createServiceRef<ScopeRegistry>('core.scopes'),
  database: createServiceRef<S.Database>('storage.database'),
  blobStore: createServiceRef<S.BlobStore>('storage.blobs'),
  accounts: createServiceRef<S.AccountStore>('auth.accounts'),
  apiKeys: createServiceRef<S.ApiKeyStore>('auth.apiKeys'),
  authenticator: createServiceRef<S.Authenticator>('auth.authenticator'),
  wallet: createServiceRef<S.Wallet>('billing.wallet'),
  concurrency: createServiceRef<S.ConcurrencyLimiter>('billing.concurrency'),
  rateLimiter: createServiceRef<S.RateLimiter>('billing.rateLimiter'),
  quota: createServiceRef<S.CharacterQuota>('billing.quota'),
  /** Concurrency and rate limits shared by every node (Redis plugin); billing uses them when present. */
  sharedLimits: createServiceRef<S.SharedLimits>('cluster.sharedLimits'),
  admission: createServiceRef<S.AdmissionControl>('billing.admission'),
  /** What the primary of `sawt serve --workers N` serves the workers for billing (the machine's limits). */
  workerLimits: createServiceRef<S.ClusterPrimaryDuty>('billing.workerLimits'),
  models: createServiceRef<S.ModelCatalog>('engine.models'),
  voices: createServiceRef<S.VoiceCatalog>('engine.voices'),
  synthesizer: createServiceRef<S.SpeechSynthesizer>('engine.synthesizer'),
  /** Where a plugin adds a speech back end (speech-backend.ts; the engine provides it). */
  speechBackends: createServiceRef<import('./speech-backend.js').SpeechBackendRegistry>('engine.backends'),
  /** The engine's text front end, stage by stage (operator CLI `sawt text …`). */
  textPipeline: createServiceRef<S.TextPipeline>('engine.textPipeline'),
  /** Speaker analysis, voice preview and cloned voices (engine). */
  voiceCloning: createServiceRef<S.VoiceCloning>('engine.voiceCloning'),
  /** Pronunciation dictionaries (@sawt/plugin-dictionaries); optional for the engine and transports (absent: no locator is accepted). */
  pronunciationDictionaries: createServiceRef<S.PronunciationDictionaries>('dictionaries.pronunciation'),
  /** The accounts' webhook secrets (@sawt/plugin-jobs; the admin CLI's `accounts webhook-secret`). */
  webhookSecrets: createServiceRef<S.WebhookSecrets>('jobs.webhookSecrets'),
  /** The fastify instance of transport-http (typed loosely so core needs no fastify). */
  httpServer: createServiceRef<HttpServerService>('http.server'),
} as const;

export interface HttpServerService extends HttpRoutes {
  /** The fastify instance (routes declared through it get no authentication: prefer route()). */
  readonly app: unknown;
  /** The Node http.Server, for upgrade handlers (WebSocket). */
  readonly server: import('node:http').Server;
  /** The absolute URL clients reach this server at, no trailing slash: the publicUrl option, else from `request`. */
  publicOrigin(request: unknown): string;
  /** Declares a route for the OpenAPI document. */
  describe(route: S.HttpRouteSpec): void;
  /** Work in flight that shutdown waits for (up to its grace period), then cancels with `cancel`. */
  trackInFlight<T>(work: Promise<T>, cancel: () => void): Promise<T>;
}
