import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import type { PluginEntry } from './config.js';
import { PluginError } from './plugin-errors.js';
import type { SawtPlugin } from './plugin.js';
import type { ServiceRef } from './tokens.js';
import type { ScopeDeclaration, ScopeRegistry } from './http-routes.js';

export interface LoadedPlugin {
  plugin: SawtPlugin<any>;
  /** Options after schema validation and defaults. */
  options: Record<string, unknown>;
  /** Where it was loaded from, for messages. */
  source: string;
}

const isPath = (spec: string) => spec.startsWith('.') || spec.startsWith('/');

/** Imports one configured plugin, telling "not installed" apart from "its own dependency is missing". */
export async function importPlugin(entry: PluginEntry, configDir: string): Promise<{ plugin: SawtPlugin<any>; source: string }> {
  const spec = entry.resolve;
  const url = isPath(spec) ? pathToFileURL(path.resolve(configDir, spec)).href : resolvePackage(spec, configDir);
  let mod: { default?: unknown };
  try {
    mod = await import(url);
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { url?: string };
    // "Cannot find module|package 'X'": the plugin itself is missing only when X is the plugin.
    const missing = /Cannot find (?:module|package) '([^']+)'/.exec(String(err.message))?.[1];
    const self = isPath(spec) ? path.resolve(configDir, spec) : spec;
    // (Module loaders such as tap's may drop err.code, so the message decides.)
    const missingSelf = missing !== undefined && (missing === spec || missing === self || missing === url || missing.startsWith(`${spec}/`));
    if (missingSelf) throw new PluginError('SAWT_ERR_PLUGIN_NOT_FOUND', `Plugin '${spec}' is not installed or does not exist (${err.message})`, entry.id, { cause: e });
    throw new PluginError('SAWT_ERR_PLUGIN_LOAD', `Plugin '${spec}' failed to load: ${err.message}`, entry.id, { cause: e });
  }
  const plugin = (mod.default ?? mod) as SawtPlugin<any>;
  checkShape(plugin, spec);
  return { plugin, source: spec };
}

function resolvePackage(spec: string, configDir: string): string {
  for (const base of [path.join(configDir, 'noop.js'), path.join(process.cwd(), 'noop.js'), import.meta.url]) {
    try {
      return pathToFileURL(createRequire(base).resolve(spec)).href;
    } catch {
      /* try the next base */
    }
  }
  // Let import() resolve it (ESM-only exports) and report not-found itself.
  return spec;
}

function checkShape(p: SawtPlugin<any>, spec: string): void {
  const problems: string[] = [];
  if (!p || typeof p !== 'object') problems.push('its default export is not an object');
  else {
    if (typeof p.id !== 'string' || !/^[a-z][a-z0-9-]*$/.test(p.id)) problems.push('id must be a lowercase string');
    if (!Array.isArray(p.provides)) problems.push('provides must be an array of service refs');
    for (const k of ['consumes', 'optionalConsumes']) if (k in p) problems.push(`${k} is no longer read: name the services in deps/optionalDeps ({ name: tokens.x }), received by register`);
    for (const k of ['deps', 'optionalDeps'] as const) if (p[k] !== undefined && (typeof p[k] !== 'object' || p[k] === null || Array.isArray(p[k]))) problems.push(`${k} must be an object of service refs ({ name: tokens.x })`);
    if (typeof p.register !== 'function') problems.push('register must be a function');
    for (const k of ['start', 'stop'] as const) if (p[k] !== undefined && typeof p[k] !== 'function') problems.push(`${k} must be a function`);
    if (p.scopes !== undefined && !Array.isArray(p.scopes)) problems.push('scopes must be an array of { name, description }');
    for (const sc of Array.isArray(p.scopes) ? p.scopes : []) {
      if (!sc || typeof sc.name !== 'string' || !/^[a-z][a-z0-9-]*$/.test(sc.name)) problems.push('every scope needs a lowercase name (letters, digits, -)');
      else if (typeof sc.description !== 'string' || !sc.description) problems.push(`scope '${sc.name}' needs a description`);
      else if (sc.after !== undefined && typeof sc.after !== 'string') problems.push(`scope '${sc.name}': after must be a scope name`);
    }
    const { needs, wants } = problems.length ? { needs: [], wants: [] } : declaredNeeds(p);
    for (const ref of [...(p.provides ?? []), ...needs, ...wants]) {
      if (!ref || typeof ref.id !== 'string' || typeof ref.symbol !== 'symbol') problems.push('every service ref must come from createServiceRef()');
    }
  }
  if (problems.length) throw new PluginError('SAWT_ERR_PLUGIN_INVALID', `Plugin '${spec}' is not a valid Sawt plugin: ${[...new Set(problems)].join('; ')}`, (p as { id?: string })?.id);
}

/**
 * The scopes declared by `plugins` (in their order; a scope with `after` right after that
 * one). Throws naming both plugins when two declare the same scope.
 */
export function collectScopes(plugins: Array<SawtPlugin<any>>): ScopeRegistry {
  const owner = new Map<string, string>();
  const list: ScopeDeclaration[] = [];
  for (const p of plugins) {
    for (const sc of p.scopes ?? []) {
      const prev = owner.get(sc.name);
      if (prev !== undefined) throw new PluginError('SAWT_ERR_PLUGIN_INVALID', `Scope '${sc.name}' is declared by both plugin '${prev}' and plugin '${p.id}'`, p.id);
      owner.set(sc.name, p.id);
      list.push(Object.freeze({ ...sc }));
    }
  }
  const ordered = list.filter((sc) => sc.after === undefined || !owner.has(sc.after));
  let rest = list.filter((sc) => !ordered.includes(sc));
  while (rest.length) {
    const placeable = rest.filter((sc) => ordered.some((o) => o.name === sc.after));
    if (!placeable.length) {
      ordered.push(...rest);
      break;
    }
    for (const sc of placeable) {
      let at = ordered.findIndex((o) => o.name === sc.after) + 1;
      while (at < ordered.length && ordered[at]!.after === sc.after) at++;
      ordered.splice(at, 0, sc);
    }
    rest = rest.filter((sc) => !placeable.includes(sc));
  }
  const byName = new Map(ordered.map((sc) => [sc.name, sc]));
  return Object.freeze({ names: Object.freeze(ordered.map((sc) => sc.name)), has: (name: string) => byName.has(name), get: (name: string) => byName.get(name) });
}

const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: false });

export function validateOptions(plugin: SawtPlugin<any>, options: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(options);
  if (!plugin.configSchema) return copy;
  const validate = ajv.compile(plugin.configSchema);
  if (!validate(copy)) {
    const detail = (validate.errors ?? []).map((e) => `${e.instancePath || '(options)'} ${e.message}`).join('; ');
    throw new PluginError('SAWT_ERR_PLUGIN_OPTIONS', `Invalid options for plugin '${plugin.id}': ${detail}`, plugin.id);
  }
  return copy;
}

/**
 * Orders plugins so that every provider comes before its consumers. Throws,
 * naming the plugin and the service, on a missing or duplicate provider or a cycle.
 */
export function orderPlugins(plugins: LoadedPlugin[], coreServices: ServiceRef<unknown>[]): LoadedPlugin[] {
  const provider = new Map<string, LoadedPlugin | 'core'>();
  for (const ref of coreServices) provider.set(ref.id, 'core');
  for (const lp of plugins) {
    for (const ref of lp.plugin.provides) {
      const prev = provider.get(ref.id);
      if (prev) {
        const by = prev === 'core' ? 'core' : `plugin '${prev.plugin.id}'`;
        throw new PluginError('SAWT_ERR_PLUGIN_DUPLICATE_PROVIDER', `Service '${ref.id}' is provided by both ${by} and plugin '${lp.plugin.id}'; exactly one provider may be configured`, lp.plugin.id);
      }
      provider.set(ref.id, lp);
    }
  }
  const deps = new Map<LoadedPlugin, LoadedPlugin[]>();
  for (const lp of plugins) {
    const { needs, wants } = declaredNeeds(lp.plugin);
    for (const ref of needs) {
      if (!provider.has(ref.id)) throw new PluginError('SAWT_ERR_PLUGIN_MISSING_PROVIDER', `Plugin '${lp.plugin.id}' needs service '${ref.id}', but no configured plugin provides it`, lp.plugin.id);
    }
    deps.set(lp, [...needs, ...wants].map((ref) => provider.get(ref.id)).filter((p): p is LoadedPlugin => p !== undefined && p !== 'core' && p !== lp));
  }
  const order: LoadedPlugin[] = [];
  const state = new Map<LoadedPlugin, 'visiting' | 'done'>();
  const visit = (lp: LoadedPlugin, trail: LoadedPlugin[]) => {
    const s = state.get(lp);
    if (s === 'done') return;
    if (s === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(lp)), lp].map((x) => x.plugin.id).join(' -> ');
      throw new PluginError('SAWT_ERR_PLUGIN_CYCLE', `Plugins depend on each other in a cycle: ${cycle}`, lp.plugin.id);
    }
    state.set(lp, 'visiting');
    for (const d of deps.get(lp) ?? []) visit(d, [...trail, lp]);
    state.set(lp, 'done');
    order.push(lp);
  };
  for (const lp of plugins) visit(lp, []);
  return order;
}

/** What a plugin needs (deps) and what it uses when present (optionalDeps). */
export function declaredNeeds(plugin: SawtPlugin<any>): { needs: ServiceRef<unknown>[]; wants: ServiceRef<unknown>[] } {
  return { needs: Object.values(plugin.deps ?? {}), wants: Object.values(plugin.optionalDeps ?? {}) };
}
