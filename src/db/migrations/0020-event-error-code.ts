import { sql, type Kysely, type Migration } from 'kysely';
import { columnTypesFor, dialectOf } from '../dialect.js';

/**
 * The error code a client read, on its usage event too (issue 22): the request log filters by it,
 * and on the event it is one more (error_code, created_at) index walk like every other filter,
 * where a join with request_details made PostgreSQL read every event to find a code's newest
 * page. Failed events already stored take their code from their details (by request id: the
 * details' index); the index holds failed requests only.
 */
export const eventErrorCode: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    const id = dialectOf(db) === 'postgres' ? ', id' : '';
    const events = (await db.introspection.getTables()).find((table) => table.name === 'usage_events');
    if (!events?.columns.some((column) => column.name === 'error_code')) await db.schema.alterTable('usage_events').addColumn('error_code', varchar(64)).execute();
    await sql`update usage_events set error_code = (
        select d.error_code from request_details d
        where d.request_id = usage_events.request_id and d.created_at = usage_events.created_at and d.error_code is not null limit 1)
      where status >= 400 or outcome <> 'success'`.execute(db);
    await sql.raw(`create index if not exists usage_events_error_code on usage_events (error_code, created_at${id}) where error_code is not null`).execute(db);
  },
};
