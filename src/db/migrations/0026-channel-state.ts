import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * What the gateway itself noted about a channel (issue 35), by channel name, shared by every
 * instance: its last test's result (the console shows it after a reload) and why it disabled the
 * channel on its own (consecutive authentication failures). Both JSON text; null: none.
 * Re-runnable: the table and nothing else, created only if absent.
 */
export const channelState: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar, integer } = columnTypesFor(db);
    await db.schema
      .createTable('channel_state')
      .ifNotExists()
      .addColumn('name', varchar(100), (c) => c.primaryKey())
      .addColumn('last_test', 'text')
      .addColumn('auto_disabled', 'text')
      .addColumn('updated_at', integer, (c) => c.notNull())
      .execute();
  },
};
