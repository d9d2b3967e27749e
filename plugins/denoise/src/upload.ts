import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import busboy from 'busboy';
import { errors } from '@sawt/core';
import { sizeLimitText } from './options.js';

export class UploadAborted extends Error {
  constructor() {
    super('client aborted the upload');
  }
}

export interface Upload {
  path: string;
  bytes: number;
}

/**
 * Streams the multipart field `field` of `req` to a new file in `dir`, never
 * holding it in memory. Rejects with 40001 the moment the file passes
 * `maxBytes` (the partial file is removed), with 40001 when the field is
 * missing, and with UploadAborted when the client goes away.
 */
export function receiveUpload(req: IncomingMessage, opts: { file: () => string; field: string; maxBytes: number; track: (file: string) => void }): Promise<Upload> {
  return new Promise<Upload>((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: opts.maxBytes, files: 1, fields: 32, fieldSize: 64 * 1024, parts: 64 } });
    } catch {
      reject(errors.validation('audio is required: send multipart/form-data with an audio file field'));
      return;
    }
    let settled = false;
    let upload: Upload | null = null;
    let writing: Promise<void> | null = null;
    let writer: ReturnType<typeof createWriteStream> | null = null;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      req.unpipe(bb);
      bb.removeAllListeners('close');
      const w = writer;
      if (!w || w.closed) return reject(e);
      // Wait until the file is closed so that removing it cannot race its creation.
      w.once('error', () => {});
      w.once('close', () => reject(e));
      w.destroy();
    };
    bb.on('file', (name, stream, _info) => {
      if (name !== opts.field || writer) {
        stream.resume();
        return;
      }
      const file = opts.file();
      opts.track(file);
      const ws = createWriteStream(file, { flags: 'wx' });
      writer = ws;
      const u: Upload = { path: file, bytes: 0 };
      upload = u;
      stream.on('data', (c: Buffer) => { u.bytes += c.length; });
      stream.on('limit', () => {
        stream.resume();
        fail(errors.validation(`File size exceeds ${sizeLimitText(opts.maxBytes)} limit`));
      });
      writing = new Promise<void>((res, rej) => {
        ws.on('finish', res);
        ws.on('error', rej);
        stream.on('error', rej);
      });
      writing.catch(() => {}); // a failure is reported through fail(); never unhandled
      stream.pipe(ws);
    });
    bb.on('error', (e) => fail(errors.validation(`Malformed multipart body: ${(e as Error).message}`)));
    bb.on('close', () => {
      if (settled) return;
      if (!upload || !writing) {
        fail(errors.validation('audio is required and must be an audio file'));
        return;
      }
      writing.then(() => {
        if (settled) return;
        settled = true;
        resolve(upload!);
      }, (e: Error) => fail(e));
    });
    req.on('aborted', () => fail(new UploadAborted()));
    req.on('close', () => {
      if (!req.complete) fail(new UploadAborted());
    });
    req.on('error', () => fail(new UploadAborted()));
    req.pipe(bb);
  });
}

export async function removeQuietly(file: string): Promise<void> {
  await rm(file, { force: true }).catch(() => {});
}
