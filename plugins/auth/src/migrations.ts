import type { Migration } from '@sawt/core';

/**
 * Timestamps are ISO 8601 UTC strings (same text on SQLite and PostgreSQL, and
 * ordered correctly as text). api_keys.used_chars is also updated by the
 * character quota (quota.ts), which lives in this plugin for that reason.
 */
export const authMigrations: Migration[] = [
  {
    name: '001-accounts-keys-grants',
    async up(knex) {
      await knex.schema.createTable('accounts', (t) => {
        t.string('id', 36).primary();
        t.string('name', 200).notNullable();
        t.string('plan', 20).notNullable();
        t.string('created_at', 30).notNullable();
      });
      await knex.schema.createTable('api_keys', (t) => {
        t.string('id', 36).primary();
        t.string('account_id', 36).notNullable().references('id').inTable('accounts').onDelete('CASCADE');
        t.string('key_hash', 64).notNullable().unique();
        t.string('prefix', 16).notNullable();
        /** JSON array of endpoint scopes; null = every endpoint. */
        t.text('endpoints').nullable();
        t.string('expires_at', 30).nullable();
        t.bigInteger('quota_chars').nullable();
        t.bigInteger('used_chars').notNullable().defaultTo(0);
        t.string('revoked_at', 30).nullable();
        /** Soft delete: the row stays so a deleted key's secret is recognised and reported as deleted. */
        t.string('deleted_at', 30).nullable();
        t.string('created_at', 30).notNullable();
        t.index(['account_id']);
      });
      await knex.schema.createTable('model_grants', (t) => {
        t.string('account_id', 36).notNullable().references('id').inTable('accounts').onDelete('CASCADE');
        t.string('model_id', 200).notNullable();
        t.string('created_at', 30).notNullable();
        t.primary(['account_id', 'model_id']);
      });
    },
  },
];
