import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration, type MigrationProvider } from 'kysely';
import type { Database } from './schema.js';
import { initial } from './migrations/0001-initial.js';
import { videoTaskPolls } from './migrations/0002-video-task-polls.js';

/** Migrations in order; the names are what the migration table records. */
const MIGRATIONS: Record<string, Migration> = { '0001-initial': initial, '0002-video-task-polls': videoTaskPolls };

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export type Db = Kysely<Database>;

/** Opens the embedded SQLite store in the data directory and brings its schema up to date. */
export async function connectSqlite(dataDir: string): Promise<Db> {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new SqliteDatabase(join(dataDir, 'gateway.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  await migrate(db);
  return db;
}

export async function migrate(db: Db): Promise<void> {
  const { error, results } = await new Migrator({ db, provider }).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed: ${String(error)}`);
  }
}
