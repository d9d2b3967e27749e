import path from 'node:path';
import { definePlugin, tokens } from '@sawt/core';
import { KnexDatabase, type Dialect } from './database.js';
import { FileBlobStore } from './blob-store.js';
import { DatabaseBlobStore, blobMigrations } from './db-blob-store.js';

export { KnexDatabase } from './database.js';
export { FileBlobStore, validateBlobKey } from './blob-store.js';
export { DatabaseBlobStore } from './db-blob-store.js';

export interface StorageOptions {
  client: Dialect;
  /** PostgreSQL connection string; SAWT_DATABASE_URL when absent. */
  connection?: string;
  /** SQLite file; `<dataDir>/sawt.db` when absent. */
  filename?: string;
  /** Where blobs live: 'files' (a directory of this node) or 'database' (shared by every node of a cluster). */
  blobs: 'files' | 'database';
  /** Blob directory ('files'); `<dataDir>/blobs` when absent. */
  blobsDir?: string;
}

export default definePlugin<StorageOptions>({
  id: 'storage',
  provides: [tokens.database, tokens.blobStore],
  consumes: [],
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      client: { enum: ['sqlite3', 'pg'], default: 'sqlite3' },
      connection: { type: 'string', minLength: 1 },
      filename: { type: 'string', minLength: 1 },
      blobs: { enum: ['files', 'database'], default: 'files' },
      blobsDir: { type: 'string', minLength: 1 },
    },
  },

  register(ctx) {
    const { options, runtime } = ctx;
    const connection = options.connection ?? process.env.SAWT_DATABASE_URL;
    if (options.client === 'pg' && !connection) {
      throw new Error("Storage client 'pg' needs a connection string: set the 'connection' option or SAWT_DATABASE_URL");
    }
    const db = new KnexDatabase(
      {
        client: options.client,
        filename: path.resolve(runtime.dataDir, options.filename ?? 'sawt.db'),
        connection,
      },
      ctx.logger,
    );
    let blobs: FileBlobStore | DatabaseBlobStore;
    if (options.blobs === 'database') {
      db.addMigrations('storage', blobMigrations);
      blobs = new DatabaseBlobStore(db);
    } else {
      blobs = new FileBlobStore(path.resolve(runtime.dataDir, options.blobsDir ?? 'blobs'));
    }
    ctx.provide(tokens.database, db);
    ctx.provide(tokens.blobStore, blobs);
    return {
      async start() {
        if (blobs instanceof FileBlobStore) await blobs.init();
        await db.open();
      },
      stop: () => db.close(),
    };
  },
});
