import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { currentProcess, isLocalProcessGone, type Database, type Logger, type Migration, type ProcessOwner } from '@sawt/core';

/** filename: the SQLite file (sqlite3); connection: the PostgreSQL connection string (pg). */
interface DatabaseSettings { client: Database['dialect']; filename: string; connection?: string }

/** How long a SQLite connection waits for another process's write lock before failing (the admin CLI shares the file). */
const SQLITE_BUSY_TIMEOUT_MS = 5000;
const MIGRATIONS_TABLE = 'sawt_migrations';
/** Processes booting at once (server + CLI, several nodes) contend for the migration lock; the losers retry for this long. */
const MIGRATION_LOCK_WAIT_MS = 60_000;
/** SQLite: the process that migrates holds this one-row table's row (its identity), so that a holder that died is seen as gone. */
const MIGRATION_HOLDER_TABLE = 'sawt_migrations_holder';
/** A SQLite migration lock whose holder cannot be checked (another machine, another boot) is broken after this long. */
const MIGRATION_HOLDER_STALE_MS = 10 * 60_000;
/** PostgreSQL: the session advisory lock every node takes to migrate (pg_advisory_lock; it dies with the session). */
const PG_MIGRATION_LOCK_KEY = 7_357_612_001;

interface NamedMigration { name: string; migration: Migration }

/**
 * The knex connection plus the migrations plugins hand in during register().
 * The connection opens in open(), after every plugin has registered.
 */
export class KnexDatabase implements Database {
  private connection: Knex | null = null;
  private readConnection: Knex | null = null;
  private readonly migrations: NamedMigration[] = [];
  private migrationsApplied = false;

  constructor(private readonly settings: DatabaseSettings, private readonly logger: Logger) {}

  get dialect(): Database['dialect'] {
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
      if (this.migrations.some((m) => m.name === name)) throw new Error(`Migration '${name}' is added twice`);
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
    const open = [this.connection, this.readConnection];
    this.connection = this.readConnection = null;
    await Promise.all(open.map((c) => c?.destroy()));
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
        const applied = await this.underMigrationLock(deadline, async () => {
          await this.breakStaleKnexLock(config);
          return ((await this.knex.migrate.latest(config)) as [number, string[]])[1];
        });
        if (applied.length) this.logger.info({ migrations: applied }, 'database migrations applied');
        break;
      } catch (e) {
        if (!isContention(e) || Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
      }
    }
    this.migrationsApplied = true;
  }

  /**
   * Runs `fn` holding this database's migration lock, which dies with its holder: on PostgreSQL a
   * session advisory lock (pg_advisory_lock) on a connection of its own; on SQLite the row of
   * sawt_migrations_holder, naming this process, which another process breaks (with a log line) once
   * that process is gone, or after MIGRATION_HOLDER_STALE_MS when it cannot tell.
   */
  private async underMigrationLock<T>(deadline: number, fn: () => Promise<T>): Promise<T> {
    const knex = this.knex;
    if (this.settings.client === 'pg') {
      const client = knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };
      const conn = await client.acquireConnection();
      try {
        await knex.raw('select pg_advisory_lock(?)', [PG_MIGRATION_LOCK_KEY]).connection(conn);
        return await fn();
      } finally {
        await knex.raw('select pg_advisory_unlock(?)', [PG_MIGRATION_LOCK_KEY]).connection(conn).catch(() => {});
        await client.releaseConnection(conn);
      }
    }
    const self = currentProcess(process.env.SAWT_NODE_ID?.trim() || hostname());
    await knex.raw(`create table if not exists ${MIGRATION_HOLDER_TABLE} (id integer primary key, owner text not null, since bigint not null)`);
    for (let attempt = 1; ; attempt++) {
      const since = Date.now();
      const inserted = await knex.raw(`insert or ignore into ${MIGRATION_HOLDER_TABLE} (id, owner, since) values (1, ?, ?)`, [JSON.stringify(self), since]).then(() => knex(MIGRATION_HOLDER_TABLE).where({ id: 1, owner: JSON.stringify(self), since }).first());
      if (inserted) break;
      const row = (await knex(MIGRATION_HOLDER_TABLE).where({ id: 1 }).first()) as { owner: string; since: number } | undefined;
      if (row) {
        let owner: ProcessOwner | null = null;
        try {
          owner = JSON.parse(row.owner) as ProcessOwner;
        } catch { /* unreadable: broken below */ }
        const gone = owner !== null && isLocalProcessGone(owner, self);
        const old = Date.now() - Number(row.since) > MIGRATION_HOLDER_STALE_MS;
        if (owner === null || gone || old) {
          this.logger.warn({ holder: owner ?? row.owner, since: new Date(Number(row.since)).toISOString(), reason: gone ? 'holder process is gone' : old ? `held for more than ${MIGRATION_HOLDER_STALE_MS / 1000} s` : 'unreadable holder' }, 'breaking a stale database migration lock');
          await knex(MIGRATION_HOLDER_TABLE).where({ id: 1, owner: row.owner, since: row.since }).del();
          continue;
        }
      }
      if (Date.now() > deadline) throw new Error(`Migration table is already locked by process ${row?.owner ?? '?'} (waited ${MIGRATION_LOCK_WAIT_MS / 1000} s)`);
      await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
    }
    try {
      return await fn();
    } finally {
      await knex(MIGRATION_HOLDER_TABLE).where({ id: 1, owner: JSON.stringify(self) }).del().catch(() => {});
    }
  }

  /**
   * Under the migration lock no other process can be inside knex's migrator, so a knex lock found
   * taken (is_locked = 1, left by a process that died while migrating) or not exactly one row (two
   * processes that created the table at once each inserted one: knex then says "already locked"
   * forever) is stale: it is reset, with a log line.
   */
  private async breakStaleKnexLock(config: Knex.MigratorConfig): Promise<void> {
    const lockTable = `${MIGRATIONS_TABLE}_lock`;
    if (!(await this.knex.schema.hasTable(lockTable))) return;
    const rows = (await this.knex(lockTable).select('is_locked')) as { is_locked: number | boolean }[];
    if (rows.length === 1 && !Number(rows[0]!.is_locked)) return;
    this.logger.warn({ table: lockTable, rows: rows.length, locked: rows.filter((r) => Number(r.is_locked)).length }, 'breaking a stale database migration lock (its holder is gone)');
    await this.knex.migrate.forceFreeMigrationsLock(config);
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
