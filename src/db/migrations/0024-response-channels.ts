import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * Which channel stored each Responses answer (issue 33): a follow-up naming it in
 * `previous_response_id` must reach that account, the only one that knows it, whichever instance
 * takes the follow-up. Rows older than the vendors keep responses (30 days) are pruned.
 */
export const responseChannels: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar, integer } = columnTypesFor(db);
    await db.schema
      .createTable('response_channels')
      .ifNotExists()
      .addColumn('response_id', varchar(200), (c) => c.primaryKey())
      .addColumn('channel', varchar(100), (c) => c.notNull())
      .addColumn('created_at', integer, (c) => c.notNull())
      .execute();
    await db.schema.createIndex('response_channels_created').ifNotExists().on('response_channels').column('created_at').execute();
  },
};
