import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ModelDownload } from '@sawt/core';

export interface PullResult {
  file: string;
  status: 'downloaded' | 'present';
  bytes: number;
  sha256: string;
}

async function sha256Of(file: string): Promise<string> {
  const { createReadStream } = await import('node:fs');
  const h = createHash('sha256');
  await pipeline(createReadStream(file), h);
  return h.digest('hex');
}

/**
 * Downloads one model file into modelsDir: streamed to a temporary file beside
 * the target while hashing, checked against the expected sha256, then renamed
 * into place. On any failure the temporary file is removed, so no partial or
 * unverified file is ever left where the server would load it.
 */
export async function pullFile(d: ModelDownload, modelsDir: string): Promise<PullResult> {
  const target = path.resolve(modelsDir, d.file);
  if (!target.startsWith(path.resolve(modelsDir) + path.sep)) throw new Error(`Refusing to write outside the models directory: ${d.file}`);
  const existing = await stat(target).catch(() => null);
  if (existing && (await sha256Of(target)) === d.sha256) return { file: d.file, status: 'present', bytes: existing.size, sha256: d.sha256 };
  await mkdir(path.dirname(target), { recursive: true });
  const tmp = `${target}.${randomUUID()}.part`;
  try {
    const res = await fetch(d.url);
    if (!res.ok || !res.body) throw new Error(`Download of ${d.file} failed: HTTP ${res.status} from ${d.url}`);
    const hash = createHash('sha256');
    let bytes = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        hash.update(chunk);
        bytes += chunk.length;
        cb(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), tap, createWriteStream(tmp, { flags: 'wx' }));
    const digest = hash.digest('hex');
    if (digest !== d.sha256) throw new Error(`Checksum mismatch for ${d.file}: expected sha256 ${d.sha256}, got ${digest}; file discarded`);
    await rename(tmp, target);
    return { file: d.file, status: 'downloaded', bytes, sha256: digest };
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
