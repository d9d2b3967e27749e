import type { Migration } from '@sawt/core';

/**
 * A dictionary and its versions: every change writes a new version (its rules as JSON), and
 * earlier versions stay readable by version_id until the dictionary is deleted (cascade).
 * Timestamps are ISO 8601 UTC strings (ordered as text on SQLite and PostgreSQL).
 */
export const dictionaryMigrations: Migration[] = [
  {
    name: '001-pronunciation-dictionaries',
    async up(knex) {
      await knex.schema.createTable('pronunciation_dictionaries', (t) => {
        t.string('id', 36).primary();
        t.string('account_id', 36).notNullable().references('id').inTable('accounts').onDelete('CASCADE');
        t.string('name', 200).notNullable();
        /** The version requests use when their locator names none. */
        t.string('latest_version_id', 36).notNullable();
        t.string('created_at', 30).notNullable();
        t.string('updated_at', 30).notNullable();
        t.index(['account_id', 'created_at']);
      });
      await knex.schema.createTable('pronunciation_dictionary_versions', (t) => {
        t.string('id', 36).primary();
        t.string('dictionary_id', 36).notNullable().references('id').inTable('pronunciation_dictionaries').onDelete('CASCADE');
        /** 1 for the dictionary as created, +1 per change. */
        t.integer('number').notNullable();
        t.text('rules').notNullable();
        t.integer('rule_count').notNullable();
        t.string('created_at', 30).notNullable();
        t.unique(['dictionary_id', 'number']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('pronunciation_dictionary_versions');
      await knex.schema.dropTable('pronunciation_dictionaries');
    },
  },
];
