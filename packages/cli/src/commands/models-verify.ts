// `sawt models verify`: every installed model file (SAWT_MODELS_DIR and the bundled models/) against the sha256 the
// catalog gives (its downloads) or the bundle's manifest. Exit 1 when a file differs or a bundled file is missing.
import { bundledManifest, ModelFiles, tokens, type ModelFileSource } from '@sawt/core';
import { withAdminApp } from '../admin.js';
import type { CommandResult } from '../command.js';
import { sha256File } from './download.js';

export interface VerifyResult {
  file: string;
  /** Catalog models / parts that use the file ('bundle' when only the manifest lists it). */
  parts: string[];
  status: 'ok' | 'mismatch' | 'missing' | 'not-installed' | 'unchecked';
  path?: string;
  source?: ModelFileSource;
  sha256?: string;
  expected?: string;
}

interface Known {
  parts: string[];
  expected: string | null;
  bundled: boolean;
}

export async function modelsVerify(): Promise<CommandResult> {
  return withAdminApp(async (app) => {
    const files = ModelFiles.of(app.runtime);
    const known = new Map<string, Known>();
    const entry = (file: string) => known.get(file) ?? known.set(file, { parts: [], expected: null, bundled: false }).get(file)!;
    for (const m of files.bundledDir ? bundledManifest(files.bundledDir) : []) {
      const k = entry(m.file);
      k.expected = m.sha256;
      k.bundled = true;
    }
    for (const part of app.get(tokens.models).parts()) {
      for (const f of part.files) entry(f).parts.push(part.name);
      for (const d of part.downloads) {
        const k = entry(d.file);
        if (!k.parts.includes(part.name)) k.parts.push(part.name);
        k.expected ??= d.sha256;
      }
    }
    const results: VerifyResult[] = [];
    for (const [file, k] of [...known].sort(([a], [b]) => a.localeCompare(b))) {
      const parts = k.parts.length ? k.parts : ['bundle'];
      const copies = files.copies(file);
      if (copies.length === 0) {
        results.push({ file, parts, status: k.bundled ? 'missing' : 'not-installed', ...(k.expected && { expected: k.expected }) });
        continue;
      }
      for (const c of copies) {
        const sha256 = await sha256File(c.path);
        const status = k.expected === null ? 'unchecked' : sha256 === k.expected ? 'ok' : 'mismatch';
        results.push({ file, parts, status, path: c.path, source: c.source, sha256, ...(k.expected && { expected: k.expected }) });
      }
    }
    const bad = results.filter((r) => r.status === 'mismatch' || r.status === 'missing');
    const count = (s: VerifyResult['status']) => results.filter((r) => r.status === s).length;
    const text = [
      ...results.map((r) => `${r.status.padEnd(13)} ${r.file.padEnd(48)} ${r.path ?? ''}`),
      `${count('ok')} ok, ${count('mismatch')} differ, ${count('missing')} missing, ${count('not-installed')} not installed, ${count('unchecked')} without a sha256`,
    ].join('\n');
    const describe = (r: VerifyResult) => (r.status === 'missing' ? `${r.file} is missing (looked in ${files.searched(r.file)})` : `${r.path} has sha256 ${r.sha256}, expected ${r.expected}`);
    const failure = bad.length === 0 ? undefined : `models verify: ${describe(bad[0]!)}${bad.length > 1 ? ` (and ${bad.length - 1} more: ${bad.slice(1).map((r) => r.path ?? r.file).join(', ')})` : ''}`;
    return { json: results, text, failure };
  }, { start: false });
}
