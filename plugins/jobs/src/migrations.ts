import type { Migration } from '@sawt/core';

/**
 * Jobs, their parts (the unit of work a runner leases) and the accounts' webhook secrets.
 * Timestamps are ISO 8601 UTC strings (ordered correctly as text on SQLite and PostgreSQL),
 * money integer micro-units, as in billing.
 */
export const jobMigrations: Migration[] = [
  {
    name: '001-jobs-parts-webhook-secrets',
    async up(knex) {
      await knex.schema.createTable('jobs', (t) => {
        t.string('id', 36).primary();
        t.string('account_id', 36).notNullable().references('id').inTable('accounts').onDelete('CASCADE');
        /** The account's plan at submit: how many of its jobs may run at once. */
        t.string('plan', 20).notNullable();
        t.string('key_id', 36).nullable();
        t.string('model_id', 100).notNullable();
        t.string('voice_id', 100).notNullable();
        t.string('output_format', 30).notNullable();
        t.float('speed').notNullable();
        t.float('stability').notNullable();
        t.text('title').nullable();
        /** Chapters as JSON: [{ title, at }], `at` the offset of its first character in the spoken text. */
        t.text('chapters').notNullable();
        t.text('callback_url').nullable();
        /** Where the client reached the API (audio_url of the webhook). */
        t.text('api_base').notNullable();
        t.string('status', 10).notNullable(); // queued | running | succeeded | failed | canceled
        t.integer('chars_total').notNullable();
        t.integer('chars_done').notNullable().defaultTo(0);
        t.integer('parts_total').notNullable();
        t.integer('parts_done').notNullable().defaultTo(0);
        /** Samples of the finished parts at the synthesis rate (audio seconds = samples / rate). */
        t.bigInteger('samples_done').notNullable().defaultTo(0);
        t.integer('synthesis_rate').notNullable();
        t.integer('error_status').nullable();
        t.integer('error_code').nullable();
        t.text('error_message').nullable();
        t.string('reservation_id', 36).notNullable();
        t.bigInteger('cost_micro').notNullable();
        /** held | settled | released: what became of the reservation (a sweep finishes what a crash left). */
        t.string('money', 10).notNullable().defaultTo('held');
        t.text('audio_key').nullable();
        t.bigInteger('audio_bytes').nullable();
        t.text('timeline_key').nullable();
        /** The lease of the last step (joining the parts into the audio), so one process does it. */
        t.string('finisher_id', 36).nullable();
        t.string('finisher_expires_at', 30).nullable();
        /** pending | delivered | failed (null: no callback_url, or not finished yet). */
        t.string('webhook_state', 10).nullable();
        t.integer('webhook_attempts').notNullable().defaultTo(0);
        t.string('webhook_next_at', 30).nullable();
        t.string('webhook_lease_expires_at', 30).nullable();
        t.integer('webhook_last_status').nullable();
        t.text('webhook_last_error').nullable();
        t.string('created_at', 30).notNullable();
        t.string('started_at', 30).nullable();
        t.string('finished_at', 30).nullable();
        /** When the job and its files are removed (set when it ends). */
        t.string('expires_at', 30).nullable();
        t.index(['status', 'created_at']);
        t.index(['account_id', 'created_at']);
        t.index(['webhook_state', 'webhook_next_at']);
        t.index(['expires_at']);
      });
      await knex.schema.createTable('job_parts', (t) => {
        t.string('job_id', 36).notNullable().references('id').inTable('jobs').onDelete('CASCADE');
        t.integer('idx').notNullable();
        t.text('text').notNullable();
        /** Offset of the part's first character in the job's spoken text. */
        t.integer('text_start').notNullable();
        t.integer('chars').notNullable();
        t.string('status', 10).notNullable(); // pending | leased | done
        t.string('owner_id', 36).nullable();
        t.string('lease_expires_at', 30).nullable();
        t.integer('attempts').notNullable().defaultTo(0);
        t.bigInteger('samples').nullable();
        t.text('blob_key').nullable();
        /** Sentence cues as JSON: [{ s, e, t, at }] (ms from the part's start, text, offset in the spoken text). */
        t.text('cues').nullable();
        t.primary(['job_id', 'idx']);
        t.index(['status', 'lease_expires_at']);
      });
      await knex.schema.createTable('webhook_secrets', (t) => {
        t.string('account_id', 36).primary().references('id').inTable('accounts').onDelete('CASCADE');
        t.string('secret', 100).notNullable();
        t.string('created_at', 30).notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('webhook_secrets');
      await knex.schema.dropTable('job_parts');
      await knex.schema.dropTable('jobs');
    },
  },
  {
    name: '002-part-steps',
    async up(knex) {
      await knex.schema.alterTable('job_parts', (t) => {
        /** The steps its synthesis reads (JSON SpeechStep[]) when the engine prepared the job's text (SSML, dictionaries); null: plain text. */
        t.text('steps').nullable();
      });
    },
    async down(knex) {
      await knex.schema.alterTable('job_parts', (t) => {
        t.dropColumn('steps');
      });
    },
  },
];
