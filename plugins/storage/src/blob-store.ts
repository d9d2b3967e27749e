import { createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SawtError, type BlobStore } from '@sawt/core';

/** One path segment of a blob key: no separators, no dot-only names, nothing a shell or filesystem treats specially. */
const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
const MAX_KEY_LENGTH = 512;

/** Throws a RangeError unless `key` is a relative, '/'-separated path of safe segments. */
export function validateBlobKey(key: unknown): string {
  if (typeof key !== 'string' || key === '' || key.length > MAX_KEY_LENGTH) {
    throw new RangeError(`Expected a blob key of 1 to ${MAX_KEY_LENGTH} characters but received ${JSON.stringify(key)}`);
  }
  const bad = key.split('/').find((s) => !SEGMENT.test(s));
  if (bad !== undefined) {
    throw new RangeError(`Invalid blob key ${JSON.stringify(key)}: segment ${JSON.stringify(bad)} must be letters, digits, '.', '_' or '-' and not start with '.' (no '..', no absolute paths)`);
  }
  return key;
}

/**
 * Blobs as files under one directory. Writes land in a temporary file in
 * `<root>/.tmp` and are renamed into place, so a reader never sees a partial blob.
 */
export class FileBlobStore implements BlobStore {
  private readonly tmpDir: string;

  constructor(private readonly root: string) {
    this.tmpDir = path.join(root, '.tmp');
  }

  async init(): Promise<void> {
    await mkdir(this.tmpDir, { recursive: true });
  }

  localPath(key: string): string {
    return path.join(this.root, validateBlobKey(key));
  }

  async put(key: string, data: Buffer | Readable): Promise<{ key: string; size: number }> {
    const target = this.localPath(key);
    await mkdir(path.dirname(target), { recursive: true });
    await mkdir(this.tmpDir, { recursive: true });
    const tmp = path.join(this.tmpDir, `${randomUUID()}.part`);
    try {
      const source = Buffer.isBuffer(data) ? Readable.from([data]) : data;
      await pipeline(source, createWriteStream(tmp, { flags: 'wx' }));
      const { size } = await stat(tmp);
      await rename(tmp, target).catch(async (e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
        // A delete of the folder's last blob removed the folder meanwhile: made again.
        await mkdir(path.dirname(target), { recursive: true });
        await rename(tmp, target);
      });
      return { key, size };
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }

  async get(key: string): Promise<Readable> {
    const file = this.localPath(key);
    try {
      // Opening first turns a missing blob into an error here rather than on the stream.
      const handle = await open(file, 'r');
      return handle.createReadStream();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new SawtError('notFound', `Blob '${key}' not found`, { cause: e });
      throw e;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(this.localPath(key))).isFile();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw e;
    }
  }

  /** Removes the blob, and its folders that it leaves empty (a deleted job leaves no `jobs/<id>/`). */
  async delete(key: string): Promise<void> {
    const file = this.localPath(key);
    try {
      await unlink(file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    for (let dir = path.dirname(file); dir.startsWith(this.root + path.sep); dir = path.dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break; // not empty (or gone): the folders above it are not empty either
      }
    }
  }
}
