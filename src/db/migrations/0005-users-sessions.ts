import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * People (issue 12): operators and the key holders they invite, their console sessions and
 * invitations. Tokens (session cookies, invitation links) are stored as SHA-256 hashes only.
 * The built-in `operator` user owns every key made before users existed (0006) and is who
 * signs in with the admin token.
 */
export const usersSessions: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    await db.schema
      .createTable('users')
      .addColumn('id', varchar(64), (c) => c.primaryKey())
      .addColumn('email', varchar(320), (c) => c.unique())
      .addColumn('name', varchar(200), (c) => c.notNull())
      .addColumn('role', varchar(16), (c) => c.notNull())
      .addColumn('password_hash', 'text')
      .addColumn('budget_usd', 'double precision')
      .addColumn('rpm', 'bigint')
      .addColumn('tpm', 'bigint')
      .addColumn('models', 'text')
      .addColumn('families', 'text')
      .addColumn('disabled_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db
      .insertInto('users' as never)
      .values({ id: 'operator', email: null, name: 'Operator', role: 'operator', created_at: Date.now() } as never)
      .execute();

    await db.schema
      .createTable('sessions')
      .addColumn('token_hash', varchar(64), (c) => c.primaryKey())
      .addColumn('user_id', varchar(64), (c) => c.notNull())
      .addColumn('csrf_token', varchar(64), (c) => c.notNull())
      // 'admin_token' sessions end when the admin token is replaced (the hash no longer matches).
      .addColumn('method', varchar(16), (c) => c.notNull())
      .addColumn('admin_token_hash', varchar(64))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id']).execute();

    await db.schema
      .createTable('invitations')
      .addColumn('token_hash', varchar(64), (c) => c.primaryKey())
      .addColumn('user_id', varchar(64), (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint')
      .execute();
    await db.schema.createIndex('invitations_user').on('invitations').columns(['user_id']).execute();
  },
};
