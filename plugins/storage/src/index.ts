import path from 'node:path';
import { definePlugin, tokens } from '@sawt/core';
import { KnexDatabase, type Dialect } from './database.js';
import { FileBlobStore } from './blob-store.js';

export { KnexDatabase } from './database.js';
export { FileBlobStore, validateBlobKey } from './blob-store.js';

export interface StorageOptions {
  client: Dialect;
  /** PostgreSQL connection string; SAWT_DATABASE_URL when absent. */
  connection?: string;
  /** SQLite file; `<dataDir>/sawt.db` when absent. */
  filename?: string;
  /** Blob directory; `<dataDir>/blobs` when absent. */
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
    const blobs = new FileBlobStore(path.resolve(runtime.dataDir, options.blobsDir ?? 'blobs'));
    ctx.provide(tokens.database, db);
    ctx.provide(tokens.blobStore, blobs);
    return {
      async start() {
        await blobs.init();
        await db.open();
      },
      stop: () => db.close(),
    };
  },
});
