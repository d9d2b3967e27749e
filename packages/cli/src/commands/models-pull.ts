// `sawt models pull [NAME…]`: the catalog's model files into SAWT_MODELS_DIR, unless present or bundled with the
// right sha256. Downloads resume from .partial/<sha256>.part; only a verified file is moved into place.
import { copyFile, mkdir, open, readFile, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { ModelFiles, SawtError, tokens, type ModelDownload, type ModelPart } from '@sawt/core';
import { withAdminApp } from '../admin.js';
import type { CommandInput, CommandResult } from '../command.js';
import { DownloadError, downloadVerified, mb, sha256File } from './download.js';
import { ProgressBar } from './progress.js';

export interface PullResult {
  /** The catalog model (or front-end part, e.g. 'diacritizer') the file belongs to. */
  name: string;
  /** Same as name, for catalog models. */
  model_id?: string;
  file: string | null;
  status: 'downloaded' | 'present' | 'bundled' | 'builtin' | 'failed';
  path?: string;
  bytes?: number;
  sha256?: string;
  url?: string;
  /** Bytes of an earlier, interrupted download this one continued from. */
  resumed_from?: number;
  error?: string;
}

export const PARTIAL_DIR = '.partial';

/** Removes `dir`, then its parents up to and including `top`, while each is empty. */
async function removeEmptyDirs(dir: string, top: string): Promise<void> {
  for (let d = dir; ; d = path.dirname(d)) {
    if ((await readdir(d).catch(() => null))?.length !== 0) return;
    await rmdir(d).catch(() => {});
    if (d === top || !d.startsWith(top + path.sep)) return;
  }
}

/** Holds `${part}.lock` (our pid) so that two pulls never write one part; a lock of a dead process is taken over. */
async function lockPart(part: string): Promise<() => Promise<void>> {
  const lock = `${part}.lock`;
  for (let i = 0; i < 2; i++) {
    try {
      const fh = await open(lock, 'wx');
      await fh.writeFile(String(process.pid));
      await fh.close();
      return () => rm(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(await readFile(lock, 'utf8').catch(() => ''));
      let alive = false;
      try {
        if (pid > 0 && pid !== process.pid) process.kill(pid, 0);
        alive = pid > 0 && pid !== process.pid;
      } catch (err) {
        alive = (err as NodeJS.ErrnoException).code === 'EPERM';
      }
      if (alive) throw new Error(`another sawt models pull (pid ${pid}) is downloading this file into ${part}`);
      await rm(lock, { force: true });
    }
  }
  throw new Error(`cannot lock ${part}`);
}

/** Puts `from` at `target` in one step (rename, or a copy renamed into place across file systems or when asked to copy). */
async function moveInto(from: string, target: string, { copy = false } = {}): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  if (!copy) {
    try {
      return await rename(from, target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    }
  }
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    await copyFile(from, tmp);
    await rename(tmp, target);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  if (!copy) await rm(from, { force: true });
}

export interface PullOptions {
  /** Replace a file in SAWT_MODELS_DIR whose sha256 differs from the catalog's. */
  force?: boolean;
  /** Where the progress bar is drawn (a terminal), or null for none. */
  progress?: NodeJS.WriteStream | null;
  idleTimeoutMs?: number;
}

/** Makes one catalog file present and verified in SAWT_MODELS_DIR (or finds it bundled). Throws with the URL, the cause and where to place the file by hand. */
export async function pullFile(d: ModelDownload, files: ModelFiles, label: string, opts: PullOptions = {}): Promise<PullResult> {
  const root = path.resolve(files.modelsDir);
  const target = path.resolve(root, d.file);
  if (!target.startsWith(root + path.sep) || d.file.split(/[\\/]/).includes(PARTIAL_DIR)) throw new Error(`refusing to write ${d.file} outside the models directory ${root}`);
  const base = { name: label, file: d.file, url: d.url, sha256: d.sha256 };
  let replacing = false;
  for (const copy of files.copies(d.file)) {
    const digest = await sha256File(copy.path);
    const bytes = (await stat(copy.path)).size;
    if (digest === d.sha256) {
      if (!replacing) return { ...base, status: copy.source === 'bundled' ? 'bundled' : 'present', path: copy.path, bytes };
      // --force over a differing file: the bundled copy is the catalog's file, no download needed.
      await moveInto(copy.path, target, { copy: true });
      return { ...base, status: 'present', path: target, bytes };
    }
    // The copy the server loads first differs: an operator's own file, or a damaged one.
    if (copy.path === target) {
      if (!opts.force) throw new Error(`${target} exists with sha256 ${digest}, not the catalog's ${d.sha256} (an operator's own file, or a damaged one): run with --force to replace it with ${d.url}`);
      replacing = true;
    }
  }

  const partDir = path.join(root, PARTIAL_DIR);
  const part = path.join(partDir, `${d.sha256}.part`);
  const created = await mkdir(partDir, { recursive: true });
  const top = created ? path.resolve(created) : partDir;
  const unlock = await lockPart(part).catch(async (e) => {
    await removeEmptyDirs(partDir, top);
    throw e;
  });
  const bar = new ProgressBar(`${label} ${d.file}`, opts.progress ?? null);
  let kept = false;
  try {
    const got = await downloadVerified(d.url, d.sha256, part, { onProgress: (p) => bar.update(p), idleTimeoutMs: opts.idleTimeoutMs });
    await moveInto(part, target);
    return { ...base, status: 'downloaded', path: target, bytes: got.bytes, ...(got.resumedFrom > 0 && { resumed_from: got.resumedFrom }) };
  } catch (e) {
    kept = e instanceof DownloadError && e.partKept;
    const have = kept ? ((await stat(part).catch(() => null))?.size ?? 0) : 0;
    kept &&= have > 0;
    throw new Error(
      `download of ${d.file} from ${d.url} failed: ${(e as Error).message}. ` +
        (kept ? `The ${mb(have)} received are kept in ${part}: run the same command again to resume. ` : '') +
        `Or fetch it yourself and place it at ${target} (sha256 ${d.sha256}).`,
    );
  } finally {
    bar.done();
    await unlock();
    if (!kept) await rm(part, { force: true });
    await removeEmptyDirs(partDir, top);
  }
}

/** The parts named (all when none is), each with its downloads; unknown names are a usage error. */
export function chooseParts(parts: ModelPart[], names: string[]): ModelPart[] {
  if (names.length === 0) return parts;
  return names.map((n) => {
    const p = parts.find((x) => x.name === n);
    if (!p) throw new SawtError('notFound', `Model '${n}' not found; known: ${parts.map((x) => x.name).join(', ')}`);
    return p;
  });
}

export async function modelsPull({ values, positionals }: CommandInput): Promise<CommandResult> {
  const json = values.json === true;
  return withAdminApp(async (app) => {
    const files = ModelFiles.of(app.runtime);
    const catalog = app.get(tokens.models);
    const chosen = chooseParts(catalog.parts(), positionals);
    const progress = !json && process.stderr.isTTY ? process.stderr : null;
    // A file several parts share is fetched once.
    const done = new Map<string, PullResult>();
    const results: PullResult[] = [];
    for (const part of chosen) {
      const add = (r: PullResult) => results.push({ ...r, name: part.name, ...(catalog.get(part.name) && { model_id: part.name }) });
      if (part.downloads.length === 0 && part.files.length === 0) add({ name: part.name, file: null, status: 'builtin' });
      for (const f of part.downloads.length === 0 ? part.files : []) {
        const copy = files.copies(f)[0];
        add(copy
          ? { name: part.name, file: f, status: copy.source === 'bundled' ? 'bundled' : 'present', path: copy.path }
          : { name: part.name, file: f, status: 'failed', error: `the catalog gives no download address for ${f}: place it by hand at ${path.resolve(files.modelsDir, f)}` });
      }
      for (const d of part.downloads) {
        let r = done.get(d.file);
        if (!r) {
          r = await pullFile(d, files, part.name, { force: values.force === true, progress })
            .catch((e: Error): PullResult => ({ name: part.name, file: d.file, status: 'failed', url: d.url, sha256: d.sha256, error: e.message }));
          done.set(d.file, r);
        }
        add(r);
      }
    }
    const failed = results.filter((r) => r.status === 'failed');
    const text = results.map((r) => `${r.name.padEnd(14)} ${(r.file ?? '(no files needed)').padEnd(48)} ${r.status}${r.bytes !== undefined ? ` (${mb(r.bytes)})` : ''}${r.path ? `  ${r.path}` : ''}`).join('\n');
    const failure = failed.length === 0 ? undefined : `models pull: ${failed[0]!.error}${failed.length > 1 ? ` (and ${failed.length - 1} more failed: ${failed.slice(1).map((r) => r.file).join(', ')})` : ''}`;
    return { json: results, text, failure };
  }, { start: false });
}
