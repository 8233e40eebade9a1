import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * Prices an operator sets through the admin API or the console (issue 21), by public model id:
 * the whole price of the model as JSON (the file's `prices` shape), replacing the file's and the
 * built-in sheet's entry for it.
 */
export const modelPrices: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    await db.schema
      .createTable('model_prices')
      .addColumn('model', varchar(128), (c) => c.primaryKey())
      .addColumn('price', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
