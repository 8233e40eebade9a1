import { sql, type Kysely, type Migration } from 'kysely';
import { columnTypesFor, dialectOf } from '../dialect.js';

/**
 * Issue 23 items 1 and 10: every usage event gets an id the gateway alone makes (`entry_id`,
 * random), which joins it to its request-log details, names the entry in the log's API, and is
 * what a replay after a crash deduplicates on. A client's `x-request-id` stays in `request_id`, a
 * searchable field that no longer joins anything: two tenants sending one id in the same
 * millisecond used to see each other's bodies.
 *
 * Existing rows get random ids. Details are kept only where their old join was unambiguous (one
 * event and one detail row for that request id and millisecond); the rest could have been
 * joined to another tenant's request, so they go (the ledger rows stay: the log then shows those
 * requests without headers).
 */
export const requestLogIds: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    const randomId = dialectOf(db) === 'postgres' ? sql`gen_random_uuid()::text` : sql`lower(hex(randomblob(16)))`;
    await db.schema.alterTable('usage_events').addColumn('entry_id', varchar(64)).execute();
    await db.schema.alterTable('request_details').addColumn('entry_id', varchar(64)).execute();
    await sql`update usage_events set entry_id = ${randomId}`.execute(db);
    await sql`
      update request_details set entry_id = (
        select e.entry_id from usage_events e where e.request_id = request_details.request_id and e.created_at = request_details.created_at
      )
      where (select count(*) from usage_events e where e.request_id = request_details.request_id and e.created_at = request_details.created_at) = 1
        and (select count(*) from request_details d where d.request_id = request_details.request_id and d.created_at = request_details.created_at) = 1
    `.execute(db);
    await sql`delete from request_details where entry_id is null`.execute(db);
    // Unique: a replayed or retried batch can never store one answered request twice.
    await db.schema.createIndex('usage_events_entry').unique().on('usage_events').column('entry_id').execute();
    await db.schema.createIndex('request_details_entry').on('request_details').column('entry_id').execute();
    // The details were found by request id and time; nothing reads them that way any more.
    await db.schema.dropIndex('request_details_request').execute();
  },
};
