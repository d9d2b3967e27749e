import type { Knex } from 'knex';

export interface RowLock {
  table: string;
  /** The key column the rows are found by. */
  id: string;
  ids: string[];
  /** The columns returned. */
  columns: string[];
  /** A column SQLite's lock writes to itself (not a key other tables reference). */
  touch: string;
  /** Further conditions (rows that fail them are neither locked nor returned). */
  where?: (q: Knex.QueryBuilder) => void;
}

/**
 * Locks rows until `trx` ends and returns them, for a transaction that reads before it decides
 * what to write. PostgreSQL: SELECT … ORDER BY id FOR UPDATE (row locks taken in id order, so two
 * such transactions cannot deadlock). SQLite: an UPDATE that writes a column to itself, RETURNING
 * the rows, so the transaction takes the database's write lock first (a read first takes a shared
 * lock whose upgrade fails while another process writes).
 */
export async function lockRows<T>(trx: Knex, lock: RowLock): Promise<T[]> {
  const ids = [...new Set(lock.ids)].sort();
  if (ids.length === 0) return [];
  const rows = trx(lock.table).whereIn(lock.id, ids);
  if (lock.where) rows.where(lock.where);
  if ((trx.client as { config?: { client?: unknown } }).config?.client === 'pg') {
    return (await rows.orderBy(lock.id).forUpdate().select(lock.columns)) as T[];
  }
  return (await rows.update({ [lock.touch]: trx.ref(lock.touch) }, lock.columns)) as T[];
}
