import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { PluginError } from './plugin-errors.js';
import { BUNDLED_MODELS_DIR, INSTALL_DIR } from './model-files.js';
import type { RuntimeSettings } from './services.js';

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
 * Reads the runtime settings from the environment (README, "Operating it"). Without SAWT_CONFIG,
 * `config/default.json` of the working directory is used when there is one, else the
 * installation's own (so `sawt serve` works from any directory).
 */
export function runtimeFromEnv(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): RuntimeSettings {
  let configPath = path.resolve(cwd, env.SAWT_CONFIG || DEFAULT_CONFIG);
  if (!env.SAWT_CONFIG && !existsSync(configPath)) configPath = path.join(INSTALL_DIR, DEFAULT_CONFIG);
  const port = env.SAWT_PORT === undefined || env.SAWT_PORT === '' ? 8080 : Number(env.SAWT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new PluginError('SAWT_ERR_CONFIG', `SAWT_PORT must be an integer between 0 and 65535 but is ${JSON.stringify(env.SAWT_PORT)}`);
  }
  return {
    host: env.SAWT_HOST || '127.0.0.1',
    port,
    dataDir: path.resolve(cwd, env.SAWT_DATA_DIR || './data'),
    modelsDir: path.resolve(cwd, env.SAWT_MODELS_DIR || './models'),
    bundledModelsDir: BUNDLED_MODELS_DIR,
    configPath,
    configDir: path.dirname(configPath),
    nodeId: env.SAWT_NODE_ID?.trim() || hostname(),
  };
}

export function loadConfig(configPath: string): SawtConfig {
  let raw: string;
  try {
    raw = readFileSync(configPath, 'utf8');
  } catch (e) {
    throw new PluginError('SAWT_ERR_CONFIG', `Cannot read config file ${configPath}: ${(e as Error).message}`, undefined, { cause: e });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw new PluginError('SAWT_ERR_CONFIG', `Config file ${configPath} is not valid JSON: ${(e as Error).message}`, undefined, { cause: e });
  }
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
