import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * Every key belongs to a user (issue 12). Keys that exist already, and keys the CLI or the
 * bootstrap make without naming an owner, belong to the built-in `operator` (the default).
 */
export const keyOwner: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    await db.schema.alterTable('api_keys').addColumn('owner', varchar(64), (c) => c.notNull().defaultTo('operator')).execute();
    await db.schema.createIndex('api_keys_owner').on('api_keys').columns(['owner']).execute();
  },
};
