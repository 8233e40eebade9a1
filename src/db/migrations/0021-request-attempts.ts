import { type Kysely, type Migration } from 'kysely';

/**
 * Each upstream attempt of a request (issue 22): the request log's drawer lists them (channel,
 * status, latency, error). JSON on the request's details, written only when there was more than
 * one attempt or an attempt failed: a request answered by its first try needs no second record.
 */
export const requestAttempts: Migration = {
  async up(db: Kysely<unknown>) {
    const details = (await db.introspection.getTables()).find((table) => table.name === 'request_details');
    if (details?.columns.some((column) => column.name === 'attempts')) return;
    await db.schema.alterTable('request_details').addColumn('attempts', 'text').execute();
  },
};
