import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { Database, Logger, Migration } from '@sawt/core';

export type Dialect = Database['dialect'];

export interface DatabaseSettings {
  client: Dialect;
  /** SQLite file (sqlite3). */
  filename: string;
  /** PostgreSQL connection string (pg). */
  connection?: string;
}

/** How long a SQLite connection waits for another process's write lock before failing (the admin CLI shares the file). */
const SQLITE_BUSY_TIMEOUT_MS = 5000;
const MIGRATIONS_TABLE = 'sawt_migrations';
/** Processes booting at once (server + CLI, several nodes) contend for the migration lock; the losers retry for this long. */
const MIGRATION_LOCK_WAIT_MS = 60_000;

interface NamedMigration {
  name: string;
  migration: Migration;
}

/**
 * The knex connection plus the migrations plugins hand in during register().
 * The connection opens in open(), after every plugin has registered.
 */
export class KnexDatabase implements Database {
  private connection: Knex | null = null;
  private readConnection: Knex | null = null;
  private readonly migrations: NamedMigration[] = [];
  private readonly names = new Set<string>();
  private migrationsApplied = false;

  constructor(private readonly settings: DatabaseSettings, private readonly logger: Logger) {}

  get dialect(): Dialect {
    return this.settings.client;
  }

  get knex(): Knex {
    if (!this.connection) throw new Error('The database is not open yet: use it from start() or later, not from register()');
    return this.connection;
  }

  get reader(): Knex {
    return this.readConnection ?? this.knex;
  }

  addMigrations(pluginId: string, migrations: Migration[]): void {
    if (this.migrationsApplied) throw new Error(`Plugin '${pluginId}' added migrations after the database was migrated; add them during register()`);
    for (const migration of migrations) {
      const name = `${pluginId}/${migration.name}`;
      if (this.names.has(name)) throw new Error(`Migration '${name}' is added twice`);
      this.names.add(name);
      this.migrations.push({ name, migration });
    }
  }

  async open(): Promise<void> {
    if (this.connection) return;
    if (this.settings.client === 'sqlite3') await mkdir(path.dirname(this.settings.filename), { recursive: true });
    this.connection = this.settings.client === 'sqlite3' ? openSqlite(this.settings.filename, { readOnly: false }) : openPostgres(this.settings.connection!);
    try {
      await this.migrate();
      // After the migrations: the reader's first connection sees the tables they made.
      if (this.settings.client === 'sqlite3') this.readConnection = openSqlite(this.settings.filename, { readOnly: true });
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  async close(): Promise<void> {
    const c = this.connection;
    const r = this.readConnection;
    this.connection = null;
    this.readConnection = null;
    await Promise.all([c?.destroy(), r?.destroy()]);
  }

  /** Applies every migration not yet recorded, in registration order. */
  private async migrate(): Promise<void> {
    const source: Knex.MigrationSource<NamedMigration> = {
      getMigrations: async () => this.migrations,
      getMigrationName: (m) => m.name,
      getMigration: async (m) => ({ up: (k: Knex) => m.migration.up(k), down: (k: Knex) => (m.migration.down ?? noDown(m.name))(k) }),
    };
    const config: Knex.MigratorConfig = {
      migrationSource: source,
      tableName: MIGRATIONS_TABLE,
      // The CLI boots without transport plugins; migrations of plugins absent from this boot are not an error.
      disableMigrationsListValidation: true,
    };
    const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        // knex takes the migration lock even when nothing is pending; skip it then so a CLI call never waits on a server.
        const [, pending] = (await this.knex.migrate.list(config)) as [unknown[], unknown[]];
        if (pending.length === 0) break;
        const [, applied] = (await this.knex.migrate.latest(config)) as [number, string[]];
        if (applied.length) this.logger.info({ migrations: applied }, 'database migrations applied');
        break;
      } catch (e) {
        if (!isContention(e) || Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
      }
    }
    this.migrationsApplied = true;
  }
}

function noDown(name: string) {
  return async () => {
    throw new Error(`Migration '${name}' cannot be undone`);
  };
}

function isContention(e: unknown): boolean {
  const msg = String((e as Error)?.message ?? '');
  const code = (e as { code?: string })?.code;
  return code === 'SQLITE_BUSY' || /already locked|SQLITE_BUSY|database is locked|duplicate key value|already exists/i.test(msg);
}

/**
 * The writer: one connection per process (SQLite allows one writer at a time anyway, and a single
 * connection keeps this process's transactions from contending with each other). The reader: up
 * to two read-only connections, so key lookups run beside an open write transaction.
 */
function openSqlite(filename: string, opts: { readOnly: boolean }): Knex {
  // busy_timeout first, so switching to WAL waits for a concurrent process instead of failing.
  const pragmas = opts.readOnly
    ? [`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`, 'PRAGMA query_only = ON']
    : [`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`, 'PRAGMA journal_mode = WAL', 'PRAGMA synchronous = NORMAL', 'PRAGMA foreign_keys = ON'];
  return knexFactory({
    client: 'sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: opts.readOnly ? 0 : 1,
      max: opts.readOnly ? 2 : 1,
      afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: SqliteConnection) => void) {
        const next = (i: number): void => {
          if (i === pragmas.length) return done(null, conn);
          conn.run(pragmas[i]!, (err) => (err ? done(err, conn) : next(i + 1)));
        };
        next(0);
      },
    },
  });
}

interface SqliteConnection {
  run(sql: string, cb: (err: Error | null) => void): void;
}

function openPostgres(connection: string): Knex {
  return knexFactory({ client: 'pg', connection, pool: { min: 0, max: 10 } });
}
