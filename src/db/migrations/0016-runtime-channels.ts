import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * Channels added or changed through the admin API or the console (issue 21), by name. `definition`
 * holds a channel's fields as JSON (the file's shape) without its credentials; `secrets` holds
 * the credentials and headers, sealed with AES-256-GCM (keys/secret-box.ts). A row named like a
 * file channel overrides the file's fields it gives; the file stays the starting point.
 */
export const runtimeChannels: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    await db.schema
      .createTable('runtime_channels')
      .addColumn('name', varchar(100), (c) => c.primaryKey())
      .addColumn('definition', 'text', (c) => c.notNull())
      .addColumn('secrets', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
