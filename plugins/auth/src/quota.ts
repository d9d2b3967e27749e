import type { Knex } from 'knex';
import { errors, lockRows, type CharacterQuota, type KeyUsage } from '@sawt/core';

/**
 * Per-key character quota on api_keys.used_chars. It lives in auth because it
 * updates auth's table; billing's wallet calls it inside a reservation's
 * transaction (tokens.quota), so characters and money move together.
 * Usage is counted for every key; only keys with quota_chars set are limited.
 */
export class SqlCharacterQuota implements CharacterQuota {
  async take(trx: Knex, keyId: string, chars: number): Promise<void> {
    if (!Number.isSafeInteger(chars) || chars < 0) throw new RangeError(`Expected a non-negative integer character count but received ${chars}`);
    // One conditional UPDATE: two concurrent requests can never both take the last characters.
    const n = await trx('api_keys')
      .where({ id: keyId })
      .whereNull('deleted_at')
      .where((q) => q.whereNull('quota_chars').orWhereRaw('used_chars + ? <= quota_chars', [chars]))
      .increment('used_chars', chars);
    if (n === 0) {
      const row = await trx('api_keys').where({ id: keyId }).whereNull('deleted_at').first('quota_chars', 'used_chars');
      if (!row) throw errors.keyDeleted();
      throw errors.quotaExceeded(Number(row.quota_chars), Number(row.used_chars));
    }
  }

  async giveBack(trx: Knex, keyId: string, chars: number): Promise<void> {
    if (chars <= 0) return;
    await trx('api_keys')
      .where({ id: keyId })
      .update({ used_chars: trx.raw('CASE WHEN used_chars >= ? THEN used_chars - ? ELSE 0 END', [chars, chars]) });
  }

  async lockUsage(trx: Knex, keyIds: string[]): Promise<Map<string, KeyUsage>> {
    const rows = await lockRows<{ id: string; quota_chars: number | string | null; used_chars: number | string }>(trx, {
      table: 'api_keys', id: 'id', ids: keyIds, columns: ['id', 'quota_chars', 'used_chars'], touch: 'used_chars', where: (q) => q.whereNull('deleted_at'),
    });
    return new Map(rows.map((r) => [r.id, { quotaChars: r.quota_chars === null ? null : Number(r.quota_chars), usedChars: Number(r.used_chars) }]));
  }

  async addUsage(trx: Knex, chars: Map<string, number>): Promise<void> {
    await Promise.all([...chars].filter(([, n]) => n > 0).map(([keyId, n]) => trx('api_keys').where({ id: keyId }).increment('used_chars', n)));
  }
}
