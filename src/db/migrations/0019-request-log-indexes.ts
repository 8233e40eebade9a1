import { sql, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect.js';

/**
 * The request log's filters, each an index that gives its rows newest first (issue 22), so a page
 * is one ordered index walk that stops at the page's end: by key, model, channel, failed requests
 * (a partial index: 4.5% of rows, whatever the status or class asked for), request id, and time
 * alone (the error code's is in 0020). SQLite appends the rowid (the event id) to every index, which is the log's
 * tie-break; PostgreSQL is given it explicitly, and its (key_id, created_at) and (created_at)
 * indexes are rebuilt with it.
 */
export const requestLogIndexes: Migration = {
  async up(db: Kysely<unknown>) {
    const postgres = dialectOf(db) === 'postgres';
    const id = postgres ? ', id' : '';
    if (postgres) {
      await sql`drop index usage_events_key_time`.execute(db);
      await sql`drop index usage_events_time`.execute(db);
      await sql`create index usage_events_key_time on usage_events (key_id, created_at, id)`.execute(db);
      await sql`create index usage_events_time on usage_events (created_at, id)`.execute(db);
    }
    await sql.raw(`create index if not exists usage_events_model_time on usage_events (model, created_at${id})`).execute(db);
    await sql.raw(`create index if not exists usage_events_channel_time on usage_events (channel, created_at${id})`).execute(db);
    await sql.raw(`create index if not exists usage_events_errors on usage_events (created_at${id}) where status >= 400 or outcome <> 'success'`).execute(db);
    await sql`create index if not exists usage_events_request on usage_events (request_id)`.execute(db);
  },
};
