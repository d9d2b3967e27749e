import { existsSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { tokens } from '@sawt/core';
import { withAdminApp } from '../admin.js';
import { UsageError } from '../args.js';
import type { CommandInput, CommandResult } from '../command.js';

/** `sawt backup --out FILE`: SQLite's `VACUUM INTO` (one read transaction; writers go on) into a file renamed into place. */
export async function backup({ values }: CommandInput): Promise<CommandResult> {
  const out = typeof values.out === 'string' ? path.resolve(values.out) : '';
  if (!out) throw new UsageError('backup needs --out FILE');
  if (existsSync(out) && !values.force) throw new UsageError(`--out ${out} exists (give --force to replace it)`);
  if (!existsSync(path.dirname(out))) throw new UsageError(`--out: no folder ${path.dirname(out)}`);
  return withAdminApp(async (app) => {
    const db = app.get(tokens.database);
    if (db.dialect !== 'sqlite3') throw new UsageError('backup copies the embedded SQLite database; on PostgreSQL use pg_dump (README, "Backing up")');
    const tmp = `${out}.partial-${process.pid}`;
    const started = Date.now();
    try {
      await db.knex.raw('VACUUM INTO ?', [tmp]);
      await rename(tmp, out);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
    const [{ n }] = await db.knex('accounts').count({ n: '*' });
    const bytes = (await stat(out)).size;
    const seconds = (Date.now() - started) / 1000;
    return { json: { out, bytes, accounts: Number(n), seconds }, text: `backup written to ${out} (${bytes} bytes, ${Number(n)} accounts, ${seconds.toFixed(2)} s)` };
  });
}
