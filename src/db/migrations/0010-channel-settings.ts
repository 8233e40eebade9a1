import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * Channel settings an operator changed at runtime (issue 12), by channel name: each column
 * overrides the configuration file's value while it is not null. `enabled` is 0/1 (the same
 * integer on SQLite and PostgreSQL).
 */
export const channelSettings: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar, integer } = columnTypesFor(db);
    await db.schema
      .createTable('channel_settings')
      .addColumn('name', varchar(100), (c) => c.primaryKey())
      .addColumn('enabled', integer)
      .addColumn('weight', integer)
      .addColumn('priority', integer)
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
