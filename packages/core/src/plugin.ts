import type { ServiceRef } from './tokens.js';
import type { Logger, RuntimeSettings } from './services/index.js';
import type { ScopeDeclaration } from './http-routes.js';
import type { FromSchema } from './schema-types.js';

/** Services a plugin receives by name: `{ db: tokens.database }`. */
export type ServiceRefs = Record<string, ServiceRef<unknown>>;
/** The services `D` names, resolved: `{ db: Database }`. */
export type ResolvedServices<D> = { [K in keyof D]: D[K] extends ServiceRef<infer T> ? T : never };

/**
 * What a plugin module's default export declares. Core orders plugins by provides/deps, validates
 * options, calls every register() (which receives `deps` resolved), then every start(); stop() in reverse.
 */
export interface SawtPlugin<Options = Record<string, unknown>, Deps extends ServiceRefs = ServiceRefs, OptionalDeps extends ServiceRefs = ServiceRefs> {
  id: string;
  /** Services this plugin registers in the container. */
  provides: ServiceRef<unknown>[];
  /** Services it needs from other plugins (or core), by the name register receives them under. */
  deps?: Deps;
  /** Services it uses when present (register receives undefined when none is). */
  optionalDeps?: OptionalDeps;
  /** JSON Schema of its options; defaults in it are applied. */
  configSchema?: Record<string, unknown>;
  /** Scopes of the endpoints this plugin serves (API keys may be restricted to some); unique across plugins. */
  scopes?: ScopeDeclaration[];
  /** 'transport' plugins are skipped by admin commands that only need the data layer. */
  tags?: string[];
  register(ctx: PluginContext<Options>, deps: ResolvedServices<Deps> & Partial<ResolvedServices<OptionalDeps>>): void | PluginLifecycle | Promise<void | PluginLifecycle>;
  /** For plugins without state: called after every register() (register's returned start wins). */
  start?(ctx: PluginContext<Options>): void | Promise<void>;
  /** For plugins without state: called in reverse order on shutdown (register's returned stop wins). */
  stop?(ctx: PluginContext<Options>): void | Promise<void>;
}

/** What register() may return: start and stop closing over what register set up. */
export interface PluginLifecycle {
  /** Runs once every plugin has registered, in dependency order. */
  start?(): void | Promise<void>;
  /** Runs in reverse order on shutdown, only for a plugin whose start succeeded. */
  stop?(): void | Promise<void>;
}

export interface PluginContext<Options> {
  readonly pluginId: string;
  readonly options: Options;
  readonly runtime: RuntimeSettings;
  readonly logger: Logger;
  /** A service the plugin declared (deps, optionalDeps, provides or core's), registered by it or an earlier plugin. */
  get<T>(ref: ServiceRef<T>): T;
  /** Registers a service instance under a token this plugin declared in `provides`. */
  provide<T>(ref: ServiceRef<T>, value: T): void;
  has(ref: ServiceRef<unknown>): boolean;
}

/** No services named (the default of deps and optionalDeps). */
type NoServices = Record<never, ServiceRef<unknown>>;
type OptionsOf<Schema> = unknown extends Schema ? Record<string, unknown> : FromSchema<Schema>;

/** Identity helper for type inference: options from `configSchema` (`as const`), register's services from `deps`. */
export function definePlugin<Schema, Deps extends ServiceRefs = NoServices, OptionalDeps extends ServiceRefs = NoServices>(
  plugin: SawtPlugin<OptionsOf<Schema>, Deps, OptionalDeps> & { configSchema?: Schema },
): SawtPlugin<OptionsOf<Schema>, Deps, OptionalDeps> {
  return plugin;
}
