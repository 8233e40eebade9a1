import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * The request log (issue 12): what a request's usage event does not say, one row per request,
 * joined to the ledger by request id and time. No unique key: a client may reuse its
 * x-request-id, and the insert must never fail for it. Rows past the retention period are deleted
 * by time, hence the second index.
 */
export const requestLog: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar, integer } = columnTypesFor(db);
    await db.schema
      .createTable('request_details')
      .addColumn('request_id', varchar(64), (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('retries', integer, (c) => c.notNull().defaultTo(0))
      .addColumn('fallbacks', integer, (c) => c.notNull().defaultTo(0))
      .addColumn('error_code', varchar(64))
      .addColumn('error_message', 'text')
      .addColumn('request_headers', 'text')
      .addColumn('request_body', 'text')
      .addColumn('response_body', 'text')
      .execute();
    await db.schema.createIndex('request_details_request').on('request_details').columns(['request_id']).execute();
    await db.schema.createIndex('request_details_time').on('request_details').columns(['created_at']).execute();
  },
};
