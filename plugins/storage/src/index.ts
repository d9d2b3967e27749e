import path from 'node:path';
import { definePlugin, tokens } from '@sawt/core';
import { KnexDatabase } from './database.js';
import { FileBlobStore } from './blob-store.js';
import { DatabaseBlobStore, blobMigrations } from './db-blob-store.js';

const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    client: { enum: ['sqlite3', 'pg'], default: 'sqlite3' },
    // PostgreSQL connection string; SAWT_DATABASE_URL when absent.
    connection: { type: 'string', minLength: 1 },
    // SQLite file; `<dataDir>/sawt.db` when absent.
    filename: { type: 'string', minLength: 1 },
    // Where blobs live: 'files' (a directory of this node) or 'database' (shared by every node of a cluster).
    blobs: { enum: ['files', 'database'], default: 'files' },
    // Blob directory ('files'); `<dataDir>/blobs` when absent.
    blobsDir: { type: 'string', minLength: 1 },
  },
} as const;

export default definePlugin({
  id: 'storage',
  provides: [tokens.database, tokens.blobStore],
  configSchema,

  register(ctx) {
    const { options, runtime } = ctx;
    const connection = options.connection ?? process.env.SAWT_DATABASE_URL;
    if (options.client === 'pg' && !connection) {
      throw new Error("Storage client 'pg' needs a connection string: set the 'connection' option or SAWT_DATABASE_URL");
    }
    const db = new KnexDatabase({ client: options.client, filename: path.resolve(runtime.dataDir, options.filename ?? 'sawt.db'), connection }, ctx.logger);
    if (options.blobs === 'database') db.addMigrations('storage', blobMigrations);
    const blobs = options.blobs === 'database' ? new DatabaseBlobStore(db) : new FileBlobStore(path.resolve(runtime.dataDir, options.blobsDir ?? 'blobs'));
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
