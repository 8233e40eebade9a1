import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * Models an operator adds through the admin API or the console (issue 21), by public id. The
 * file's `models:` are not stored: the file stays the starting point, a row here wins over it.
 * `families` is a JSON array of endpoint families.
 */
export const catalogModels: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    await db.schema
      .createTable('catalog_models')
      .addColumn('id', varchar(128), (c) => c.primaryKey())
      .addColumn('kind', varchar(16), (c) => c.notNull())
      .addColumn('families', 'text', (c) => c.notNull())
      .addColumn('owned_by', varchar(64))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
