import { sql, type Kysely, type Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * The batch a usage event's request was a line of (issue 46), null for every other request: the
 * usage report and the request log show a batch's lines, and sum its cost from the ledger itself.
 * The index holds batch lines only. Re-runnable: a column already added is kept.
 */
export const usageBatchId: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    const events = (await db.introspection.getTables()).find((table) => table.name === 'usage_events');
    if (!events?.columns.some((column) => column.name === 'batch_id')) await db.schema.alterTable('usage_events').addColumn('batch_id', varchar(64)).execute();
    await sql`create index if not exists usage_events_batch on usage_events (batch_id) where batch_id is not null`.execute(db);
  },
};
