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
 * Reads the runtime settings from the environment (README, "Operating it"). Paths not set
 * by the environment are relative to the working directory when it has a
 * `config/` folder (a checkout or a deployment directory), else to the
 * installation (so `sawt …` works the same from any directory). Without
 * SAWT_CONFIG, `config/default.json` is looked up in the working directory, then
 * in the installation; when neither exists, loading it fails naming both.
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

export function loadConfig(configPath: string): SawtConfig {
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
