import { sql, type Kysely, type Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * The Batch API (issue 46). `batches`: one row per `batch_…`, its state machine's timestamps
 * (epoch ms; the API shows unix seconds), counts, usage and cost so far, and the lease of the
 * instance driving it (batches/batch-runner.ts), so a restart or another instance on the same
 * database picks it up. `batch_lines`: one row per input line, its state and, once it ended, its
 * outcome (the output or error file's line), written in the same statement that marks it ended:
 * a line with an outcome is never sent again. `upstream_id`: the vendor batch a native line went
 * in (batches/native-batch.ts), polled after a restart.
 */
export const batches: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    await db.schema
      .createTable('batches')
      .ifNotExists()
      .addColumn('id', varchar(64), (c) => c.primaryKey())
      .addColumn('key_id', varchar(64), (c) => c.notNull())
      .addColumn('endpoint', varchar(64), (c) => c.notNull())
      .addColumn('input_file_id', varchar(128), (c) => c.notNull())
      .addColumn('completion_window', varchar(16), (c) => c.notNull())
      .addColumn('status', varchar(16), (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('in_progress_at', 'bigint')
      .addColumn('finalizing_at', 'bigint')
      .addColumn('completed_at', 'bigint')
      .addColumn('failed_at', 'bigint')
      .addColumn('expired_at', 'bigint')
      .addColumn('cancelling_at', 'bigint')
      .addColumn('cancelled_at', 'bigint')
      .addColumn('output_file_id', varchar(128))
      .addColumn('error_file_id', varchar(128))
      .addColumn('output_expires_after', 'integer')
      .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('completed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('errors', 'text')
      .addColumn('metadata', 'text')
      .addColumn('input_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('cached_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('output_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('reasoning_tokens', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', varchar(200))
      .addColumn('lease_until', 'bigint')
      .execute();
    await sql`create index if not exists batches_key on batches (key_id, id)`.execute(db);
    await sql`create index if not exists batches_open on batches (status) where status in ('validating', 'in_progress', 'finalizing', 'cancelling')`.execute(db);
    await db.schema
      .createTable('batch_lines')
      .ifNotExists()
      .addColumn('batch_id', varchar(64), (c) => c.notNull())
      .addColumn('line', 'integer', (c) => c.notNull())
      .addColumn('request_id', varchar(64), (c) => c.notNull())
      .addColumn('custom_id', 'text', (c) => c.notNull())
      .addColumn('model', varchar(200), (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('state', varchar(16), (c) => c.notNull())
      .addColumn('outcome', 'text')
      .addColumn('channel', varchar(128))
      .addColumn('upstream_id', varchar(200))
      .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('batch_lines_pk', ['batch_id', 'line'])
      .execute();
    await sql`create index if not exists batch_lines_state on batch_lines (batch_id, state, line)`.execute(db);
  },
};
