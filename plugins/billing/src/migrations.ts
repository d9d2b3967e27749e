import type { Migration } from '@sawt/core';

/**
 * Money columns are integer micro-units (bigint). Timestamps are ISO 8601 UTC
 * strings, ordered correctly as text on both SQLite and PostgreSQL.
 */
export const billingMigrations: Migration[] = [
  {
    name: '001-wallets-reservations-ledger',
    async up(knex) {
      await knex.schema.createTable('wallets', (t) => {
        t.string('account_id', 36).primary().references('id').inTable('accounts').onDelete('CASCADE');
        t.bigInteger('balance').notNullable().defaultTo(0);
        /** Sum of open reservations; available = balance - reserved. */
        t.bigInteger('reserved').notNullable().defaultTo(0);
        t.string('created_at', 30).notNullable();
        // The invariants the code keeps, enforced once more by the database.
        t.check('?? >= 0 AND ?? >= 0 AND ?? <= ??', ['reserved', 'balance', 'reserved', 'balance'], 'wallets_amounts_valid');
      });
      await knex.schema.createTable('reservations', (t) => {
        t.string('id', 36).primary();
        t.string('account_id', 36).notNullable().references('account_id').inTable('wallets').onDelete('CASCADE');
        t.bigInteger('amount').notNullable();
        t.string('status', 10).notNullable(); // open | settled | released
        /** What settle charged (≤ amount). */
        t.bigInteger('charged').nullable();
        t.string('request_id', 100).notNullable();
        t.text('description').nullable();
        t.text('release_reason').nullable();
        t.string('created_at', 30).notNullable();
        t.string('closed_at', 30).nullable();
        t.index(['status', 'created_at']);
        t.index(['account_id']);
      });
      await knex.schema.createTable('ledger', (t) => {
        t.bigIncrements('id');
        t.string('account_id', 36).notNullable().references('account_id').inTable('wallets').onDelete('CASCADE');
        /** topup | reserve | settle | release | adjust; amount is always ≥ 0, the kind gives the direction. */
        t.string('kind', 10).notNullable();
        t.bigInteger('amount').notNullable();
        t.bigInteger('balance_after').notNullable();
        t.string('request_id', 100).nullable();
        t.string('reservation_id', 36).nullable();
        t.text('description').nullable();
        t.string('created_at', 30).notNullable();
        t.index(['account_id', 'id']);
        t.index(['request_id']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('ledger');
      await knex.schema.dropTable('reservations');
      await knex.schema.dropTable('wallets');
    },
  },
];
