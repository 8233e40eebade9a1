import type { Kysely, Migration } from 'kysely';
import { columnTypesFor, dialectOf } from '../dialect.js';

/**
 * The files a key uploads through /v1/files and the batch output files the gateway writes (issue
 * 46). `files` holds what the API answers; a row is `uploading` while its content streams in and
 * `ready` once all of it is kept, so a start killed mid-upload leaves a row the sweep removes.
 * `file_chunks` holds the content in ~1 MB pieces where the database is shared (PostgreSQL);
 * the embedded store keeps content as files in the data directory and leaves it empty.
 */
export const files: Migration = {
  async up(db: Kysely<unknown>) {
    const { integer, varchar } = columnTypesFor(db);
    await db.schema
      .createTable('files')
      .addColumn('id', varchar(64), (c) => c.primaryKey())
      .addColumn('key_id', varchar(64), (c) => c.notNull())
      .addColumn('bytes', integer, (c) => c.notNull())
      .addColumn('created_at', integer, (c) => c.notNull())
      .addColumn('expires_at', integer)
      .addColumn('filename', 'text', (c) => c.notNull())
      .addColumn('purpose', varchar(40), (c) => c.notNull())
      .addColumn('status', varchar(16), (c) => c.notNull())
      .execute();
    await db.schema.createIndex('files_key_created').on('files').columns(['key_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('files_expiry').on('files').columns(['expires_at']).execute();
    await db.schema
      .createTable('file_chunks')
      .addColumn('file_id', varchar(64), (c) => c.notNull())
      .addColumn('seq', integer, (c) => c.notNull())
      .addColumn('data', dialectOf(db) === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_chunks_pk', ['file_id', 'seq'])
      .execute();
  },
};
