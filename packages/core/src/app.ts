import 'reflect-metadata';
import { dirname } from 'node:path';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { pino } from 'pino';
import { loadConfig, runtimeFromEnv, type SawtConfig } from './config.js';
import { collectScopes, declaredNeeds, importPlugin, orderPlugins, validateOptions, type LoadedPlugin } from './loader.js';
import { PluginError } from './plugin-errors.js';
import type { PluginContext, PluginLifecycle, SawtPlugin } from './plugin.js';
import { PromMetrics } from './metrics.js';
import { logDestination } from './log-format.js';
import type { Logger, Metrics, RuntimeSettings } from './services/index.js';
import { tokens, type ServiceRef } from './tokens.js';
import { currentProcess } from './process-identity.js';
import { ProcessWorkDir, workDirBase } from './work-dir.js';
import { systemClock, type Clock } from './clock.js';

export interface CreateSawtOptions {
  runtime?: Partial<RuntimeSettings>;
  env?: NodeJS.ProcessEnv;
  /** Config object to use instead of reading runtime.configPath. */
  config?: SawtConfig;
  logger?: Logger;
  /** Metrics to record into instead of a fresh registry. */
  metrics?: Metrics;
  /** Skip plugins carrying any of these tags (the admin CLI skips 'transport'). */
  skipTags?: string[];
  /** The clock plugins get (tokens.clock): tests pass a ManualClock and advance it. */
  clock?: Clock;
}

/** A booted set of plugins sharing one container. */
export class SawtApp {
  private started: LoadedPlugin[] = [];
  private stopping: Promise<void> | null = null;

  constructor(
    private readonly container: DependencyContainer,
    readonly runtime: RuntimeSettings,
    readonly logger: Logger,
    readonly plugins: LoadedPlugin[],
    private readonly lifecycles: Map<LoadedPlugin, PluginLifecycle>,
    private readonly workDir: ProcessWorkDir,
  ) {}

  get<T>(ref: ServiceRef<T>): T {
    if (!this.container.isRegistered(ref.symbol, true)) throw new Error(`Service '${ref.id}' is not registered`);
    return this.container.resolve<T>(ref.symbol);
  }

  has(ref: ServiceRef<unknown>): boolean {
    return this.container.isRegistered(ref.symbol, true);
  }

  /** Starts plugins in dependency order; on failure stops those already started and throws naming the plugin. */
  async start(): Promise<void> {
    const swept = this.workDir.sweep();
    if (swept.length) this.logger.info({ folders: swept }, 'removed the temp folders of processes that are gone');
    try {
      for (const lp of this.plugins) await this.startOne(lp);
    } catch (e) {
      await this.stop();
      throw e;
    }
  }

  private async startOne(lp: LoadedPlugin): Promise<void> {
    try {
      await this.lifecycles.get(lp)?.start?.();
      this.started.push(lp);
    } catch (e) {
      throw new PluginError('SAWT_ERR_PLUGIN_START', `Plugin '${lp.plugin.id}' failed to start: ${(e as Error).message}`, lp.plugin.id, { cause: e });
    }
  }

  /**
   * Starts only the plugins that provide the database, which applies the migrations every plugin
   * registered, and stops them again: what the primary of `sawt serve --workers N` does once before
   * it forks the workers, so that they never migrate at the same time.
   */
  async migrate(): Promise<void> {
    try {
      for (const lp of this.plugins) if (lp.plugin.provides.some((r) => r.id === tokens.database.id)) await this.startOne(lp);
    } finally {
      await this.stop();
    }
  }

  /**
   * Stops started plugins: first every transport at once (each refuses new work from that moment and
   * their in-flight work, HTTP and WebSocket alike, drains within one grace period, not one after
   * the other), then the rest in reverse order. Errors are logged and do not stop the others.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const stopOne = async (lp: LoadedPlugin) => {
        try {
          await this.lifecycles.get(lp)?.stop?.();
        } catch (e) {
          this.logger.error({ err: e, plugin: lp.plugin.id }, 'plugin failed to stop cleanly');
        }
      };
      const order = [...this.started].reverse();
      const isTransport = (lp: LoadedPlugin) => lp.plugin.tags?.includes('transport') ?? false;
      await Promise.all(order.filter(isTransport).map(stopOne));
      for (const lp of order.filter((p) => !isTransport(p))) await stopOne(lp);
      this.started = [];
      await this.workDir.remove();
    })();
    return this.stopping;
  }
}

export function createLogger(level = process.env.SAWT_LOG_LEVEL || 'info'): Logger {
  const destination = logDestination();
  return (destination ? pino({ level, base: undefined }, destination) : pino({ level, base: undefined })) as unknown as Logger;
}

/** Loads the configured plugins, validates and orders them, and runs every register(). */
export async function createSawt(opts: CreateSawtOptions = {}): Promise<SawtApp> {
  const runtime: RuntimeSettings = { ...runtimeFromEnv(opts.env ?? process.env), ...opts.runtime };
  if (opts.runtime?.configPath && !opts.runtime.configDir) runtime.configDir = dirname(opts.runtime.configPath);
  const config = opts.config ?? loadConfig(runtime.configPath);
  const logger = opts.logger ?? createLogger();
  const container = rootContainer.createChildContainer();
  container.registerInstance(tokens.runtime.symbol, runtime);
  container.registerInstance(tokens.logger.symbol, logger);
  // The admin CLI (no transports) serves no /metrics: no process-metrics collectors there.
  container.registerInstance(tokens.metrics.symbol, opts.metrics ?? new PromMetrics({ processMetrics: !opts.skipTags?.includes('transport') }));
  const workDir = new ProcessWorkDir(workDirBase(runtime.dataDir), currentProcess(runtime.nodeId));
  container.registerInstance(tokens.workDir.symbol, workDir);
  container.registerInstance(tokens.clock.symbol, opts.clock ?? systemClock);

  const loaded: LoadedPlugin[] = [];
  const seen = new Set<string>();
  // Scopes come from every enabled plugin, those skipped by tag included: the admin CLI
  // (no transports) creates keys restricted to the transports' scopes.
  const declaring: SawtPlugin<any>[] = [];
  for (const entry of config.plugins) {
    if (entry.enabled === false) continue;
    const { plugin, source } = await importPlugin(entry, runtime.configDir);
    declaring.push(plugin);
    if (opts.skipTags?.some((t) => plugin.tags?.includes(t))) continue;
    if (seen.has(plugin.id)) throw new PluginError('SAWT_ERR_PLUGIN_INVALID', `Plugin id '${plugin.id}' is configured twice`, plugin.id);
    seen.add(plugin.id);
    loaded.push({ plugin, source, options: validateOptions(plugin, entry.options ?? {}) });
  }
  container.registerInstance(tokens.scopes.symbol, collectScopes(declaring));
  const coreServices = [tokens.runtime, tokens.logger, tokens.metrics, tokens.workDir, tokens.clock, tokens.scopes];
  const ordered = orderPlugins(loaded, coreServices);

  const lifecycles = new Map<LoadedPlugin, PluginLifecycle>();
  for (const lp of ordered) {
    const { plugin } = lp;
    const provides = new Set(plugin.provides.map((r) => r.id));
    const { needs, wants } = declaredNeeds(plugin);
    const declared = new Set([...coreServices, ...plugin.provides, ...needs, ...wants].map((r) => r.id));
    const ctx: PluginContext<any> = {
      pluginId: plugin.id,
      options: lp.options,
      runtime,
      logger: logger.child({ plugin: plugin.id }),
      get: <T>(ref: ServiceRef<T>) => {
        if (!declared.has(ref.id)) throw new PluginError('SAWT_ERR_PLUGIN_REGISTER', `Plugin '${plugin.id}' asked for service '${ref.id}' without declaring it in deps or optionalDeps`, plugin.id);
        if (!container.isRegistered(ref.symbol, true)) throw new PluginError('SAWT_ERR_PLUGIN_REGISTER', `Plugin '${plugin.id}' asked for service '${ref.id}', which is not registered (declare it in deps)`, plugin.id);
        return container.resolve<T>(ref.symbol);
      },
      provide: <T>(ref: ServiceRef<T>, value: T) => {
        if (!provides.has(ref.id)) throw new PluginError('SAWT_ERR_PLUGIN_REGISTER', `Plugin '${plugin.id}' registered '${ref.id}' without declaring it in provides`, plugin.id);
        container.registerInstance(ref.symbol, value);
      },
      has: (ref) => container.isRegistered(ref.symbol, true),
    };
    try {
      // What the plugin named in deps, resolved (optionalDeps: undefined when nobody provides it).
      const deps: Record<string, unknown> = {};
      for (const [name, ref] of Object.entries(plugin.deps ?? {})) deps[name] = ctx.get(ref);
      for (const [name, ref] of Object.entries(plugin.optionalDeps ?? {})) deps[name] = ctx.has(ref) ? ctx.get(ref) : undefined;
      const returned = await plugin.register(ctx, deps);
      lifecycles.set(lp, {
        start: returned?.start ?? (plugin.start && (() => plugin.start!(ctx))),
        stop: returned?.stop ?? (plugin.stop && (() => plugin.stop!(ctx))),
      });
    } catch (e) {
      if (e instanceof PluginError) throw e;
      throw new PluginError('SAWT_ERR_PLUGIN_REGISTER', `Plugin '${plugin.id}' failed to register: ${(e as Error).message}`, plugin.id, { cause: e });
    }
    for (const ref of plugin.provides) {
      if (!container.isRegistered(ref.symbol, true)) {
        throw new PluginError('SAWT_ERR_PLUGIN_REGISTER', `Plugin '${plugin.id}' declares it provides '${ref.id}' but did not register it`, plugin.id);
      }
    }
  }
  return new SawtApp(container, runtime, logger, ordered, lifecycles, workDir);
}
