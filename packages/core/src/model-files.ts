// Where model files are found: each file first in SAWT_MODELS_DIR (the operator's, overriding any
// single file), then in the installation's bundled `models/`.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RuntimeSettings } from './services/index.js';

/** The installation's root (resolved from this file, not the working directory). */
export const INSTALL_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** The models shipped in the repository (`models/`, listed in its manifest.json). */
export const BUNDLED_MODELS_DIR = path.join(INSTALL_DIR, 'models');

export type ModelFileSource = 'models-dir' | 'bundled';

export interface ModelFileCopy {
  path: string;
  /** 'models-dir': SAWT_MODELS_DIR; 'bundled': the installation's models/. */
  source: ModelFileSource;
}

/** One bundled file as `models/manifest.json` records it. */
export interface BundledModelFile {
  file: string;
  sha256: string;
  bytes: number;
}

function samePath(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

export class ModelFiles {
  /** The installation's bundled models folder, or null when there is none. */
  readonly bundledDir: string | null;
  private readonly places: Array<[string, ModelFileSource]>;

  constructor(readonly modelsDir: string, bundledDir: string | null = BUNDLED_MODELS_DIR) {
    this.bundledDir = bundledDir && existsSync(bundledDir) ? bundledDir : null;
    // SAWT_MODELS_DIR may be the bundled folder itself (the default `./models` run from
    // the repository root): then there is one place to look, and its files are the bundle.
    if (this.bundledDir && samePath(this.bundledDir, modelsDir)) this.places = [[modelsDir, 'bundled']];
    else this.places = this.bundledDir ? [[modelsDir, 'models-dir'], [this.bundledDir, 'bundled']] : [[modelsDir, 'models-dir']];
  }

  static of(runtime: Pick<RuntimeSettings, 'modelsDir' | 'bundledModelsDir'>): ModelFiles {
    return new ModelFiles(runtime.modelsDir, runtime.bundledModelsDir === undefined ? BUNDLED_MODELS_DIR : runtime.bundledModelsDir);
  }

  /** Whether SAWT_MODELS_DIR is the bundled folder (files pulled there sit beside the bundle). */
  get modelsDirIsBundled(): boolean {
    return this.places.length === 1 && this.places[0]![1] === 'bundled';
  }

  /** Every copy of `file` present, the one that is used first. */
  copies(file: string): ModelFileCopy[] {
    return this.places.map(([dir, source]) => ({ path: path.resolve(dir, file), source })).filter((c) => existsSync(c.path));
  }

  /** Absolute path of the copy to load, or null when no folder has the file. */
  find(file: string): string | null {
    return this.copies(file)[0]?.path ?? null;
  }

  /** Where `file` is looked for, for messages ("/a/x or /b/x"). */
  searched(file: string): string {
    return this.places.map(([dir]) => path.resolve(dir, file)).join(' or ');
  }

  /** The files of `files` that no folder has. */
  missing(files: readonly string[]): string[] {
    return files.filter((f) => this.find(f) === null);
  }
}

/** The bundled files and their sha256, from `models/manifest.json` (empty when there is no bundle). */
export function bundledManifest(bundledDir: string = BUNDLED_MODELS_DIR): BundledModelFile[] {
  const file = path.join(bundledDir, 'manifest.json');
  if (!existsSync(file)) return [];
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { files: Record<string, { sha256: string; bytes: number }> };
  return Object.entries(parsed.files).map(([f, v]) => ({ file: f, sha256: v.sha256, bytes: v.bytes }));
}
