import { Readable } from 'node:stream';
import { SawtError, type BlobStore, type Database, type Migration } from '@sawt/core';
import { validateBlobKey } from './blob-store.js';

/** The table every node of a cluster reads blobs from (no shared filesystem needed). */
export const blobMigrations: Migration[] = [
  {
    name: '001-blobs',
    async up(knex) {
      await knex.schema.createTable('blobs', (t) => {
        t.string('key', 512).primary();
        t.binary('data').notNullable();
        t.bigInteger('size').notNullable();
        t.string('created_at', 30).notNullable();
      });
    },
  },
];

/** Largest blob the database store accepts (cloned voices keep a reference of at most a few MB). */
const MAX_BLOB_BYTES = 64 * 1024 * 1024;

/**
 * Blobs as rows of the shared database: what one node writes every node reads.
 * A put collects the stream and writes the row in one statement (insert or replace),
 * so a reader never sees a partial blob and a failed stream writes nothing.
 */
export class DatabaseBlobStore implements BlobStore {
  constructor(private readonly db: Database) {}

  localPath(): null {
    return null;
  }

  async put(key: string, data: Buffer | Readable): Promise<{ key: string; size: number }> {
    validateBlobKey(key);
    const body = Buffer.isBuffer(data) ? data : await collect(data);
    await this.db.knex('blobs')
      .insert({ key, data: body, size: body.length, created_at: new Date().toISOString() })
      .onConflict('key')
      .merge(['data', 'size', 'created_at']);
    return { key, size: body.length };
  }

  async get(key: string): Promise<Readable> {
    validateBlobKey(key);
    const row = await this.db.knex('blobs').where({ key }).first('data');
    if (!row) throw new SawtError('notFound', `Blob '${key}' not found`);
    return Readable.from([Buffer.from(row.data as Buffer)]);
  }

  async exists(key: string): Promise<boolean> {
    validateBlobKey(key);
    return !!(await this.db.knex('blobs').where({ key }).first('key'));
  }

  async delete(key: string): Promise<void> {
    validateBlobKey(key);
    await this.db.knex('blobs').where({ key }).delete();
  }
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array);
    size += b.length;
    if (size > MAX_BLOB_BYTES) {
      stream.destroy();
      throw new RangeError(`A blob stored in the database may hold at most ${MAX_BLOB_BYTES} bytes`);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks, size);
}
