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
  },
  {
    name: '002-reservation-leases',
    async up(knex) {
      await knex.schema.alterTable('reservations', (t) => {
        /** The process holding the reservation (lease_owners.id) and until when its lease runs (renewed by its heartbeat). */
        t.string('owner_id', 36).nullable();
        t.string('lease_expires_at', 30).nullable();
        /** The key's quota characters the reservation also holds (given back with the money on release). */
        t.string('key_id', 36).nullable();
        t.bigInteger('quota_chars').notNullable().defaultTo(0);
        t.index(['status', 'lease_expires_at']);
        t.index(['owner_id', 'status']);
      });
      // Reservations opened before leases existed keep the old rule: orphaned after an hour.
      const open = await knex('reservations').where({ status: 'open' }).select('id', 'created_at');
      for (const r of open as Array<{ id: string; created_at: string }>) {
        await knex('reservations').where({ id: r.id }).update({ lease_expires_at: new Date(Date.parse(r.created_at) + 3_600_000).toISOString() });
      }
      await knex.schema.createTable('lease_owners', (t) => {
        /** One row per running process that may hold reservations (server, worker, admin CLI). */
        t.string('id', 36).primary();
        t.string('node_id', 200).notNullable();
        t.integer('pid').notNullable();
        t.string('boot_id', 64).nullable();
        t.bigInteger('start_ticks').nullable();
        t.string('started_at', 30).notNullable();
        t.string('heartbeat_at', 30).notNullable();
        t.string('expires_at', 30).notNullable();
        t.index(['node_id']);
      });
    },
  },
];
