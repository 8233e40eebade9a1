import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/** Per-key cap on requests in flight at once (`max_parallel_requests`, issue 13); null: none. */
export const keyParallel: Migration = {
  async up(db: Kysely<unknown>) {
    const { integer } = columnTypesFor(db);
    await db.schema.alterTable('api_keys').addColumn('max_parallel', integer).execute();
  },
};
