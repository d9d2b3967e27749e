/**
 * One temporary folder per process (`<SAWT_DATA_DIR>/tmp/<pid>-<random>/`, with an `owner.json`), removed
 * at stop; a dead owner's folders are swept when another process starts. Nothing else writes temp files.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { isLocalProcessGone, type ProcessOwner } from './process-identity.js';

export const OWNER_FILE = 'owner.json';
/** A folder without a readable owner file is swept once it is this old (a process killed while creating it). */
const ORPHAN_AGE_MS = 10 * 60_000;

export interface WorkDir {
  /** The process's folder, created on first use. */
  readonly path: string;
  /** A fresh path in the folder (the file is not created): `<prefix>-<uuid><ext>`. */
  file(prefix: string, ext?: string): string;
  /** Removes the folder and everything in it (at stop). */
  remove(): Promise<void>;
}

/** Where the per-process folders of a data dir live. */
export function workDirBase(dataDir: string): string {
  return path.join(dataDir, 'tmp');
}

export class ProcessWorkDir implements WorkDir {
  private dir: string | null = null;

  constructor(private readonly base: string, private readonly owner: ProcessOwner) {}

  get path(): string {
    if (this.dir === null) {
      mkdirSync(this.base, { recursive: true });
      const dir = path.join(this.base, `${this.owner.pid}-${randomBytes(4).toString('hex')}`);
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(path.join(dir, OWNER_FILE), JSON.stringify(this.owner));
      this.dir = dir;
    }
    return this.dir;
  }

  file(prefix: string, ext = ''): string {
    return path.join(this.path, `${prefix}-${randomUUID()}${ext}`);
  }

  async remove(): Promise<void> {
    const dir = this.dir;
    this.dir = null;
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => {});
  }

  /** Removes (and returns) the folders whose owner is certainly gone, or that have no owner file and are old. */
  sweep(now = Date.now()): string[] {
    let names: string[];
    try {
      names = readdirSync(this.base);
    } catch {
      return [];
    }
    const removed: string[] = [];
    for (const name of names) {
      const dir = path.join(this.base, name);
      if (dir === this.dir) continue;
      const st = statSync(dir, { throwIfNoEntry: false });
      if (!st?.isDirectory()) continue;
      let owner: ProcessOwner | null = null;
      try {
        owner = JSON.parse(readFileSync(path.join(dir, OWNER_FILE), 'utf8')) as ProcessOwner;
      } catch {
        owner = null;
      }
      const gone = owner ? isLocalProcessGone(owner, this.owner) : now - st.mtimeMs > ORPHAN_AGE_MS;
      if (!gone) continue;
      try {
        rmSync(dir, { recursive: true, force: true });
        removed.push(dir);
      } catch {
        /* another process swept it first */
      }
    }
    return removed;
  }
}
