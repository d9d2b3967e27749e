import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { PluginError } from './plugin-errors.js';
import { BUNDLED_MODELS_DIR, INSTALL_DIR } from './model-files.js';
import type { RuntimeSettings } from './services/index.js';

export interface PluginEntry {
  /** A package name ("@sawt/plugin-auth", "sawt-plugin-x") or a path relative to the config file. */
  resolve: string;
  /** Defaults to the plugin's own id. */
  id?: string;
  options?: Record<string, unknown>;
  enabled?: boolean;
}

export interface SawtConfig {
  plugins: PluginEntry[];
}

const DEFAULT_CONFIG = 'config/default.json';

/**
 * The runtime settings from the environment. Unset paths are relative to the working directory when
 * it has `config/`, else to the installation; so is `config/default.json` without SAWT_CONFIG.
 */
export function runtimeFromEnv(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd(), installDir = INSTALL_DIR): RuntimeSettings {
  const home = existsSync(path.join(cwd, 'config')) ? cwd : installDir;
  let configPath = path.resolve(cwd, env.SAWT_CONFIG || DEFAULT_CONFIG);
  if (!env.SAWT_CONFIG && !existsSync(configPath)) {
    const installed = path.join(installDir, DEFAULT_CONFIG);
    if (existsSync(installed)) configPath = installed;
    else missingConfig.set(configPath, [configPath, installed]);
  }
  const port = env.SAWT_PORT === undefined || env.SAWT_PORT === '' ? 8080 : Number(env.SAWT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new PluginError('SAWT_ERR_CONFIG', `SAWT_PORT must be an integer between 0 and 65535 but is ${JSON.stringify(env.SAWT_PORT)}`);
  }
  return {
    host: env.SAWT_HOST || '127.0.0.1',
    port,
    dataDir: env.SAWT_DATA_DIR ? path.resolve(cwd, env.SAWT_DATA_DIR) : path.join(home, 'data'),
    modelsDir: env.SAWT_MODELS_DIR ? path.resolve(cwd, env.SAWT_MODELS_DIR) : path.join(home, 'models'),
    bundledModelsDir: BUNDLED_MODELS_DIR,
    configPath,
    configDir: path.dirname(configPath),
    nodeId: env.SAWT_NODE_ID?.trim() || hostname(),
  };
}

/** Default config paths that were looked for and not found, for loadConfig's message. */
const missingConfig = new Map<string, string[]>();

export interface SawtConfigOverlay {
  /** The config this one changes: "default" (the installation's config/default.json) or a path relative to this file. */
  extends?: string;
  plugins?: PluginEntry[];
}

/** Reads a config file; one with "extends" is an overlay merged (mergeConfig) into the config it names. */
export function loadConfig(configPath: string, seen: string[] = []): SawtConfig {
  const parsed = readConfigJson(configPath);
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && 'extends' in parsed) {
    const overlay = parsed as SawtConfigOverlay;
    if (typeof overlay.extends !== 'string' || overlay.extends === '') {
      throw new PluginError('SAWT_ERR_CONFIG', `Config file ${configPath}: "extends" must be "default" or the path of another config file`);
    }
    const basePath = overlay.extends === 'default' ? path.join(INSTALL_DIR, DEFAULT_CONFIG) : path.resolve(path.dirname(configPath), overlay.extends);
    if (seen.includes(basePath) || basePath === configPath) {
      throw new PluginError('SAWT_ERR_CONFIG', `Config file ${configPath}: "extends" makes a cycle (${[...seen, configPath, basePath].join(' -> ')})`);
    }
    if (overlay.plugins !== undefined && !Array.isArray(overlay.plugins)) {
      throw new PluginError('SAWT_ERR_CONFIG', `Config file ${configPath}: "plugins" must be an array`);
    }
    const base = loadConfig(basePath, [...seen, configPath]);
    // Plugin paths ("./x.js") are relative to the file that names them: both sides made absolute, so they match.
    const own = (overlay.plugins ?? []).map((p) => (isPlainObject(p) && typeof p.resolve === 'string' && p.resolve.startsWith('.') ? { ...p, resolve: path.resolve(path.dirname(configPath), p.resolve) } : p));
    return validateConfig(mergeConfig(rebase(base, path.dirname(basePath)), { plugins: own }, configPath), configPath);
  }
  return validateConfig(parsed, configPath);
}

function readConfigJson(configPath: string): unknown {
  let raw: string;
  try {
    raw = readFileSync(configPath, 'utf8');
  } catch (e) {
    const looked = missingConfig.get(configPath);
    if (looked && (e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new PluginError('SAWT_ERR_CONFIG', `No config file: looked for ${looked.join(' and ')}; set SAWT_CONFIG to the config file, or run from a directory with config/default.json`, undefined, { cause: e });
    }
    throw new PluginError('SAWT_ERR_CONFIG', `Cannot read config file ${configPath}: ${(e as Error).message}`, undefined, { cause: e });
  }
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new PluginError('SAWT_ERR_CONFIG', `Config file ${configPath} is not valid JSON: ${(e as Error).message}`, undefined, { cause: e });
  }
}

/** A base config's plugin paths ("./x") made absolute, since the merged config is read from the overlay's folder. */
function rebase(cfg: SawtConfig, dir: string): SawtConfig {
  return { ...cfg, plugins: cfg.plugins.map((p) => (p.resolve.startsWith('.') ? { ...p, resolve: path.resolve(dir, p.resolve) } : p)) };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The keys that name the elements of a config array (models, voices): such arrays merge element by element. */
const ELEMENT_KEYS = ['model_id', 'voice_id', 'id'];

/** Objects merged key by key, arrays of named objects (ELEMENT_KEYS) element by element; anything else replaced. */
export function deepMerge(base: unknown, over: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(over)) {
    const key = ELEMENT_KEYS.find((k) => [...base, ...over].every((e) => isPlainObject(e) && typeof e[k] === 'string'));
    if (!key) return structuredClone(over);
    const out = base.map((e: Record<string, unknown>) => {
      const o = over.find((x: Record<string, unknown>) => x[key] === e[key]);
      return o ? deepMerge(e, o) : structuredClone(e);
    });
    for (const o of over as Record<string, unknown>[]) if (!base.some((e: Record<string, unknown>) => e[key] === o[key])) out.push(structuredClone(o));
    return out;
  }
  if (!isPlainObject(base) || !isPlainObject(over)) return structuredClone(over);
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = k in base ? deepMerge(base[k], v) : structuredClone(v);
  return out;
}

/** A config with an overlay's plugins merged in, matched by `id` else `resolve`; an unmatched entry is appended. */
export function mergeConfig(base: SawtConfig, overlay: SawtConfigOverlay, overlayPath = 'overlay'): SawtConfig {
  const plugins = base.plugins.map((p) => structuredClone(p));
  (overlay.plugins ?? []).forEach((o, i) => {
    if (!isPlainObject(o) || typeof o.resolve !== 'string' || o.resolve === '') {
      throw new PluginError('SAWT_ERR_CONFIG', `Config file ${overlayPath}: plugins[${i}] needs a "resolve" string naming a package or a path`);
    }
    const matches = plugins.filter((p) => (o.id !== undefined ? (p.id ?? p.resolve) === o.id : p.resolve === o.resolve));
    if (matches.length > 1) {
      throw new PluginError('SAWT_ERR_CONFIG', `Config file ${overlayPath}: plugins[${i}] (${o.resolve}) matches ${matches.length} plugins of the config it extends; give the "id" of the one to change`);
    }
    if (matches.length === 0) plugins.push(structuredClone(o));
    else Object.assign(matches[0], deepMerge(matches[0], o));
  });
  return { plugins };
}

function validateConfig(parsed: unknown, configPath: string): SawtConfig {
  const cfg = parsed as Partial<SawtConfig>;
  if (!cfg || typeof cfg !== 'object' || !Array.isArray(cfg.plugins)) {
    throw new PluginError('SAWT_ERR_CONFIG', `Config file ${configPath} must be an object with a "plugins" array`);
  }
  cfg.plugins.forEach((p, i) => {
    if (!p || typeof p !== 'object' || typeof p.resolve !== 'string' || p.resolve === '') {
      throw new PluginError('SAWT_ERR_CONFIG', `Config file ${configPath}: plugins[${i}] needs a "resolve" string naming a package or a path`);
    }
    if (p.options !== undefined && (typeof p.options !== 'object' || p.options === null || Array.isArray(p.options))) {
      throw new PluginError('SAWT_ERR_CONFIG', `Config file ${configPath}: plugins[${i}].options must be an object`);
    }
  });
  return cfg as SawtConfig;
}
