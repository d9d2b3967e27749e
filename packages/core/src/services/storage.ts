/** The database and blob storage (the storage plugin). */
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';

export interface Migration {
  /** Unique within the plugin; applied in the order given. */
  name: string;
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

export interface Database {
  readonly knex: Knex;
  /**
   * For single reads that need no transaction and should not wait behind this process's writes
   * (an API key lookup on every request): on SQLite a read-only connection of its own beside the
   * one writer (WAL lets it read while a transaction is open; it sees committed data); on
   * PostgreSQL the same pool as `knex`.
   */
  readonly reader: Knex;
  /** 'sqlite3' (embedded) or 'pg'. Lets SQL that differs by dialect branch once. */
  readonly dialect: 'sqlite3' | 'pg';
  /** Called by plugins during register(); applied in registration order at storage start. */
  addMigrations(pluginId: string, migrations: Migration[]): void;
}

export interface BlobStore {
  put(key: string, data: Buffer | Readable): Promise<{ key: string; size: number }>;
  get(key: string): Promise<Readable>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Absolute path when the store is the local filesystem, else null. */
  localPath(key: string): string | null;
}
