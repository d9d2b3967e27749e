import type { ServiceRef } from './tokens.js';
import type { Logger, RuntimeSettings } from './services/index.js';
import type { ScopeDeclaration } from './http-routes.js';

/**
 * What a plugin module's default export declares. Core orders plugins by
 * provides/consumes, validates `options` against `configSchema` (JSON Schema),
 * calls every register() in order, then every start(); stop() runs in reverse.
 * State shared by register, start and stop belongs in register's closure:
 * register returns `{ start, stop }` (a PluginLifecycle).
 */
export interface SawtPlugin<Options = Record<string, unknown>> {
  id: string;
  /** Services this plugin registers in the container. */
  provides: ServiceRef<unknown>[];
  /** Services it needs from other plugins (or core: runtime, logger). */
  consumes: ServiceRef<unknown>[];
  /** Services it uses when present. */
  optionalConsumes?: ServiceRef<unknown>[];
  /** JSON Schema of its options; defaults in it are applied. */
  configSchema?: Record<string, unknown>;
  /**
   * Scopes of the endpoints this plugin serves: an API key may be restricted to some of
   * them (`endpoints`), and its routes name one (`route({ scope })`). Unique across plugins.
   */
  scopes?: ScopeDeclaration[];
  /** 'transport' plugins are skipped by admin commands that only need the data layer. */
  tags?: string[];
  register(ctx: PluginContext<Options>): void | PluginLifecycle | Promise<void | PluginLifecycle>;
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
  /**
   * Typed lookup of a service registered by this or an earlier plugin. Only
   * services the plugin declared (consumes, optionalConsumes, provides, or
   * core's runtime and logger) can be asked for; any other is refused.
   */
  get<T>(ref: ServiceRef<T>): T;
  /** Registers a service instance under a token this plugin declared in `provides`. */
  provide<T>(ref: ServiceRef<T>, value: T): void;
  has(ref: ServiceRef<unknown>): boolean;
}

/** Identity helper that gives plugin authors type inference. */
export function definePlugin<Options = Record<string, unknown>>(plugin: SawtPlugin<Options>): SawtPlugin<Options> {
  return plugin;
}
