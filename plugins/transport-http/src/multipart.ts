import { createHash } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { UploadCutOff, errors, type UploadedFile } from '@sawt/core';

export type { UploadedFile };

/** Text fields and file parts a form may hold. */
const MAX_FIELDS = 100;
const MAX_FILES = 8;

export interface MultipartForm {
  fields: Record<string, string>;
  files: Record<string, UploadedFile>;
  cleanup(): Promise<void>;
  /** Adds a work file of the request, removed by cleanup() with the uploads. */
  track(file: string): void;
}

/**
 * Reads a multipart/form-data request: text fields into memory (64 KiB each), the named file fields
 * streamed to new files at `file()` paths, with their size and sha256. Rejects with 40001 on another
 * content type, a malformed body, a form over the limits or a file over `maxFileBytes`, or UploadCutOff;
 * every file written is removed before it rejects.
 */
export function receiveForm(
  req: IncomingMessage,
  opts: { file: () => string; fileFields: string[]; maxFileBytes: number; notMultipart?: string; tooLarge?: (field: string, maxBytes: number) => string },
): Promise<MultipartForm> {
  const notMultipart = () => errors.validation(opts.notMultipart ?? 'Expected a multipart/form-data body');
  if (!/^multipart\/form-data/i.test(String(req.headers['content-type'] ?? ''))) {
    req.resume();
    return Promise.reject(notMultipart());
  }
  const written: string[] = [];
  const writers: WriteStream[] = [];
  const cleanup = async () => {
    await Promise.all(written.map((f) => rm(f, { force: true }).catch(() => {})));
  };
  return new Promise<MultipartForm>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: opts.maxFileBytes, files: MAX_FILES, fields: MAX_FIELDS, fieldSize: 64 * 1024, parts: MAX_FIELDS + MAX_FILES } });
    } catch {
      reject(notMultipart());
      return;
    }
    const fields: Record<string, string> = {};
    const files: Record<string, UploadedFile> = {};
    const writes: Array<Promise<void>> = [];
    let failed: Error | null = null;
    const fail = (e: Error) => {
      if (failed) return;
      failed = e;
      req.unpipe(bb);
      req.resume();
      bb.removeAllListeners('close');
      for (const w of writers) w.destroy();
      Promise.allSettled(writes).then(() => cleanup()).then(() => reject(e));
    };
    bb.on('field', (name, value) => {
      if (!(name in fields)) fields[name] = value;
    });
    bb.on('file', (name, stream) => {
      if (!opts.fileFields.includes(name) || files[name] || failed) {
        stream.resume();
        return;
      }
      const file = opts.file();
      written.push(file);
      const hash = createHash('sha256');
      const u: UploadedFile = { path: file, bytes: 0, sha256: '', head: Buffer.alloc(0) };
      files[name] = u;
      const ws = createWriteStream(file, { flags: 'wx' });
      writers.push(ws);
      // Once the file is closed (ended, or destroyed by fail()) its digest is taken: data the
      // parser still emits for a discarded upload is not hashed (Hash.update after digest throws).
      let closed = false;
      stream.on('data', (c: Buffer) => {
        if (closed) return;
        u.bytes += c.length;
        hash.update(c);
        if (u.head.length < 4096) u.head = Buffer.concat([u.head, c.subarray(0, 4096 - u.head.length)]);
      });
      stream.on('limit', () => fail(errors.validation(opts.tooLarge?.(name, opts.maxFileBytes) ?? `${name} is too large: at most ${opts.maxFileBytes} bytes are accepted`)));
      const write = new Promise<void>((res, rej) => {
        ws.on('close', () => {
          closed = true;
          u.sha256 = hash.digest('hex');
          res();
        });
        ws.on('error', rej);
        stream.on('error', rej);
      });
      // Failures are reported through fail(); the promise itself must never be an unhandled rejection.
      write.catch((e: Error) => fail(e));
      writes.push(write);
      stream.pipe(ws);
    });
    // A form over the limits is refused, not read in part (a missing field would be named instead).
    bb.on('fieldsLimit', () => fail(errors.validation(`Malformed multipart body: too many fields (at most ${MAX_FIELDS})`)));
    bb.on('filesLimit', () => fail(errors.validation(`Malformed multipart body: too many files (at most ${MAX_FILES})`)));
    bb.on('partsLimit', () => fail(errors.validation(`Malformed multipart body: too many fields (at most ${MAX_FIELDS} fields and ${MAX_FILES} files)`)));
    bb.on('error', (e) => fail(errors.validation(`Malformed multipart body: ${(e as Error).message}`)));
    bb.on('close', () => {
      if (failed) return;
      Promise.all(writes).then(() => {
        if (failed) return;
        resolve({ fields, files, cleanup, track: (file) => void written.push(file) });
      }, (e: Error) => fail(e));
    });
    const cutOff = () => fail(new UploadCutOff());
    req.on('aborted', cutOff);
    req.on('close', () => {
      if (!req.complete) cutOff();
    });
    req.on('error', cutOff);
    req.pipe(bb);
  });
}
