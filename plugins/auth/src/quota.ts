import { errors, type CharacterQuota, type Database } from '@sawt/core';

/**
 * Per-key character quota on api_keys.used_chars. It lives in auth because it
 * updates auth's table; billing's admission control consumes it via tokens.quota.
 * Usage is counted for every key; only keys with quota_chars set are limited.
 */
export class SqlCharacterQuota implements CharacterQuota {
  constructor(private readonly db: Database) {}

  async reserve(keyId: string, chars: number): Promise<{ release(): Promise<void> }> {
    if (!Number.isSafeInteger(chars) || chars < 0) throw new RangeError(`Expected a non-negative integer character count but received ${chars}`);
    // One conditional UPDATE: two concurrent requests can never both take the last characters.
    const n = await this.db
      .knex('api_keys')
      .where({ id: keyId })
      .whereNull('deleted_at')
      .where((q) => q.whereNull('quota_chars').orWhereRaw('used_chars + ? <= quota_chars', [chars]))
      .increment('used_chars', chars);
    if (n === 0) {
      const row = await this.db.knex('api_keys').where({ id: keyId }).whereNull('deleted_at').first('quota_chars', 'used_chars');
      if (!row) throw errors.authentication('Invalid API key: this key has been deleted');
      throw errors.quotaExceeded(Number(row.quota_chars), Number(row.used_chars));
    }
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        // Gives the characters back (failed work); never below zero.
        await this.db
          .knex('api_keys')
          .where({ id: keyId })
          .update({ used_chars: this.db.knex.raw('CASE WHEN used_chars >= ? THEN used_chars - ? ELSE 0 END', [chars, chars]) });
      },
    };
  }
}
