// One verified HTTP download into a `.part` file, resumable: bytes already in the part are kept and the rest is asked
// for with an HTTP Range request. The caller moves the part into place only after this resolves (its sha256 matched).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';

export interface DownloadProgress {
  /** Bytes of the file now in the part (resumed bytes included). */
  received: number;
  /** Size of the whole file when the server says it, else null. */
  total: number | null;
  /** Bytes that were already in the part when this download started. */
  resumedFrom: number;
}

export interface DownloadOptions {
  onProgress?: (p: DownloadProgress) => void;
  /** Give up when no byte arrives for this long (the part is kept for a later resume). */
  idleTimeoutMs?: number;
}

/** A download that failed; `partKept`: the part still holds the bytes received, for a later call to resume from. */
export class DownloadError extends Error {
  constructor(message: string, readonly url: string, readonly partKept: boolean) {
    super(message);
  }
}

/** "3.1 MB", "628 bytes": sizes in messages and the progress bar. */
export function mb(bytes: number): string {
  if (bytes < 100 * 1024) return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

/** The innermost reason of a fetch error ("connect ECONNREFUSED 127.0.0.1:9", "getaddrinfo ENOTFOUND host"). */
export function describeNetworkError(e: unknown): string {
  let err = e as (Error & { code?: string; cause?: unknown }) | undefined;
  while (err?.cause instanceof Error) err = err.cause as Error & { code?: string; cause?: unknown };
  if (!err) return String(e);
  const msg = err.message || String(err);
  return err.code && !msg.includes(err.code) ? `${msg} (${err.code})` : msg;
}

/** Parses `Content-Range: bytes START-END/TOTAL`. */
function contentRange(h: string | null): { start: number; total: number | null } | null {
  const m = h && /^bytes (\d+)-\d+\/(\d+|\*)$/i.exec(h.trim());
  return m ? { start: Number(m[1]), total: m[2] === '*' ? null : Number(m[2]) } : null;
}

/** Downloads `url` into `part`, resuming what it holds; resolves once `part` holds exactly the bytes of `sha256`. */
export async function downloadVerified(url: string, sha256: string, part: string, opts: DownloadOptions = {}): Promise<{ bytes: number; resumedFrom: number }> {
  const idleMs = opts.idleTimeoutMs ?? 30_000;
  for (let attempt = 0; ; attempt++) {
    const have = (await stat(part).catch(() => null))?.size ?? 0;
    const hash = createHash('sha256');
    if (have > 0) for await (const chunk of createReadStream(part)) hash.update(chunk as Buffer);
    const ac = new AbortController();
    const idle = setTimeout(() => ac.abort(new Error(`no data for ${idleMs / 1000} s`)), idleMs);
    try {
      let res: Response;
      try {
        // identity: byte ranges and the sha256 are of the file itself, not of a compressed transfer.
        res = await fetch(url, { headers: { 'accept-encoding': 'identity', ...(have > 0 && { range: `bytes=${have}-` }) }, signal: ac.signal, redirect: 'follow' });
      } catch (e) {
        throw new DownloadError(ac.signal.aborted ? describeNetworkError(ac.signal.reason) : describeNetworkError(e), url, have > 0);
      }
      if (res.status === 416 && have > 0) {
        // Nothing left to send: the part is complete, or it is not this file.
        await res.body?.cancel();
        if (hash.digest('hex') === sha256) return { bytes: have, resumedFrom: have };
        await rm(part, { force: true });
        if (attempt === 0) continue;
      }
      if (!res.ok || !res.body) {
        await res.body?.cancel();
        // A server error may pass; a client error (404, 403…) will not: drop the part.
        const keep = res.status >= 500 && have > 0;
        if (!keep) await rm(part, { force: true });
        throw new DownloadError(`HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`, url, keep);
      }
      let total: number | null = null;
      const resuming = res.status === 206;
      if (resuming) {
        const range = contentRange(res.headers.get('content-range'));
        if (!range || range.start !== have) {
          // The server answered another range than asked: start over.
          await res.body.cancel();
          await rm(part, { force: true });
          if (attempt === 0) continue;
          throw new DownloadError(`the server answered a range request with bytes it was not asked for (${res.headers.get('content-range')})`, url, false);
        }
        total = range.total;
      } else {
        // 200: the whole file (the server ignores ranges, or there was nothing to resume).
        const length = res.headers.get('content-length');
        total = length !== null ? Number(length) : null;
      }
      const resumedFrom = resuming ? have : 0;
      const body = resuming ? hash : createHash('sha256');
      const out = createWriteStream(part, { flags: resuming ? 'a' : 'w' });
      let writeError: Error | null = null;
      out.on('error', (e) => {
        writeError = e;
        ac.abort(e);
      });
      let received = resumedFrom;
      opts.onProgress?.({ received, total, resumedFrom });
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          idle.refresh();
          body.update(chunk);
          received += chunk.length;
          if (!out.write(chunk)) await once(out, 'drain');
          opts.onProgress?.({ received, total, resumedFrom });
        }
      } catch (e) {
        if (writeError) {
          out.destroy();
          throw new DownloadError(`cannot write ${part}: ${(writeError as Error).message}`, url, false);
        }
        // Keep every byte received so far: the next run resumes after them.
        out.end();
        await once(out, 'close').catch(() => {});
        const why = ac.signal.aborted ? describeNetworkError(ac.signal.reason) : describeNetworkError(e);
        throw new DownloadError(`connection lost after ${mb(received)}${total ? ` of ${mb(total)}` : ''}: ${why}`, url, received > 0);
      }
      out.end();
      await once(out, 'close');
      if (writeError) throw new DownloadError(`cannot write ${part}: ${(writeError as Error).message}`, url, false);
      if (total !== null && received < total) {
        throw new DownloadError(`connection closed after ${mb(received)} of ${mb(total)}`, url, received > 0);
      }
      const digest = body.digest('hex');
      if (digest !== sha256) {
        await rm(part, { force: true });
        throw new DownloadError(`sha256 mismatch: expected ${sha256}, got ${digest} (${received} bytes); the download was discarded`, url, false);
      }
      return { bytes: received, resumedFrom };
    } finally {
      clearTimeout(idle);
    }
  }
}

/** sha256 of a whole file. */
export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  await pipeline(createReadStream(file), h);
  return h.digest('hex');
}
