import type { Kysely, Migration } from 'kysely';
import { dialectOf } from '../dialect.js';

/**
 * Request headers stored packed (issue 22, requests/packed-headers.ts): about a fifth of their
 * JSON. Rows written before keep their JSON in `request_headers` until retention removes them.
 */
export const packedHeaders: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('request_details')
      .addColumn('request_headers_packed', dialectOf(db) === 'postgres' ? 'bytea' : 'blob')
      .execute();
  },
};
