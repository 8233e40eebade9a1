import type { Kysely, Migration } from 'kysely';
import { dialectOf, columnTypesFor } from '../dialect.js';

export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar, integer } = columnTypesFor(db);
    await db.schema
      .createTable('api_keys')
      .addColumn('id', varchar(64), (c) => c.primaryKey())
      .addColumn('name', varchar(200), (c) => c.notNull())
      .addColumn('prefix', varchar(32), (c) => c.notNull())
      .addColumn('secret_hash', varchar(64), (c) => c.notNull().unique())
      .addColumn('models', 'text')
      .addColumn('endpoints', 'text')
      .addColumn('tier', varchar(64))
      .addColumn('rpm', integer)
      .addColumn('tpm', integer)
      .addColumn('budget_usd', 'double precision')
      .addColumn('expires_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('settings')
      .addColumn('name', varchar(100), (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('video_tasks')
      .addColumn('id', varchar(80), (c) => c.primaryKey())
      .addColumn('key_id', varchar(64), (c) => c.notNull())
      .addColumn('surface', varchar(32), (c) => c.notNull())
      .addColumn('capability', varchar(32))
      .addColumn('model', varchar(100), (c) => c.notNull())
      .addColumn('channel', varchar(100), (c) => c.notNull())
      .addColumn('upstream_id', varchar(200), (c) => c.notNull())
      .addColumn('status', varchar(32), (c) => c.notNull())
      .addColumn('progress', integer, (c) => c.notNull())
      .addColumn('request', 'text', (c) => c.notNull())
      .addColumn('result', 'text')
      .addColumn('error_code', varchar(100))
      .addColumn('error_message', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addColumn('completed_at', 'bigint')
      .addColumn('next_poll_at', 'bigint', (c) => c.notNull())
      .addColumn('lease_owner', varchar(100))
      .addColumn('lease_until', 'bigint')
      .addColumn('charged', integer, (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('video_tasks_due').on('video_tasks').columns(['status', 'next_poll_at']).execute();

    await db.schema
      .createTable('assets')
      .addColumn('id', varchar(80), (c) => c.primaryKey())
      .addColumn('key_id', varchar(64), (c) => c.notNull())
      .addColumn('name', varchar(200))
      .addColumn('asset_type', varchar(16), (c) => c.notNull())
      .addColumn('status', varchar(16), (c) => c.notNull())
      .addColumn('source_url', 'text')
      .addColumn('file_name', varchar(200))
      .addColumn('mime_type', varchar(100))
      .addColumn('size_bytes', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();

    // SQLite: `integer primary key autoincrement` (ids never reused). PostgreSQL has no
    // AUTOINCREMENT; a bigint identity is its equivalent (and read back as a number, db/connect.ts).
    const usageEvents = db.schema.createTable('usage_events');
    await (
      dialectOf(db) === 'postgres'
        ? usageEvents.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
        : usageEvents.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    )
      .addColumn('request_id', varchar(64), (c) => c.notNull())
      .addColumn('key_id', varchar(64))
      .addColumn('model', varchar(100), (c) => c.notNull())
      .addColumn('channel', varchar(100))
      .addColumn('family', varchar(32), (c) => c.notNull())
      .addColumn('status', integer, (c) => c.notNull())
      .addColumn('outcome', varchar(32), (c) => c.notNull())
      .addColumn('prompt_tokens', integer, (c) => c.notNull())
      .addColumn('completion_tokens', integer, (c) => c.notNull())
      .addColumn('reasoning_tokens', integer, (c) => c.notNull())
      .addColumn('images', integer, (c) => c.notNull())
      .addColumn('video_seconds', 'double precision', (c) => c.notNull())
      .addColumn('cost_usd', 'double precision', (c) => c.notNull())
      .addColumn('latency_ms', integer, (c) => c.notNull())
      .addColumn('ttft_ms', integer)
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('usage_events_key_time').on('usage_events').columns(['key_id', 'created_at']).execute();
  },
};
