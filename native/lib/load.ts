/**
 * Locates and loads the native engine addon (`native/build/Release/sawt_native.node`, C++ sources
 * beside this folder). Each engine's file types its own part of the addon (its binding) and reads
 * it through loadBinding; callers use those files' validating wrappers.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { EngineError } from './errors.js';

/** Where `npm run build:native` puts the addon: native/build/Release, beside this package's dist/. */
const BUILT_ADDON = fileURLToPath(new URL('../build/Release/sawt_native.node', import.meta.url));

/** SAWT_NATIVE_ADDON, else the addon built inside this package (native/build/Release/sawt_native.node). */
export function locateAddon(): string {
  const override = process.env.SAWT_NATIVE_ADDON;
  if (override) return override;
  if (existsSync(BUILT_ADDON)) return BUILT_ADDON;
  throw new EngineError(
    'SAWT_ENGINE_ADDON_MISSING',
    `The native engine addon was not found at ${BUILT_ADDON}: run \`npm run build:native\` or set SAWT_NATIVE_ADDON`,
  );
}

let loaded: unknown;

/** The addon, loaded on first use (so that importing this package never needs it), typed as the caller's binding. */
export function loadBinding<Binding>(): Binding {
  loaded ??= createRequire(import.meta.url)(locateAddon());
  return loaded as Binding;
}
