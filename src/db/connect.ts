import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Driver, type Migration, type MigrationProvider } from 'kysely';
import type pg from 'pg';
import type { Database } from './schema.js';
import { dialectOf } from './dialect.js';
import cluster from 'node:cluster';
import { SqliteWriter, type BatchWriter } from './sqlite-writer.js';
import { PrimaryWriterClient } from './primary-writer.js';
import { initial } from './migrations/0001-initial.js';
import { videoTaskPolls } from './migrations/0002-video-task-polls.js';
import { keyControls } from './migrations/0003-key-controls.js';
import { usersSessions } from './migrations/0005-users-sessions.js';
import { keyOwner } from './migrations/0006-key-owner.js';
import { taskSubmission } from './migrations/0007-task-submission.js';
import { keyParallel } from './migrations/0008-key-parallel.js';
import { requestLog } from './migrations/0009-request-log.js';
import { channelSettings } from './migrations/0010-channel-settings.js';
import { requestLogIds } from './migrations/0011-request-log-ids.js';
import { catalogModels } from './migrations/0014-catalog-models.js';
import { modelPrices } from './migrations/0015-model-prices.js';
import { runtimeChannels } from './migrations/0016-runtime-channels.js';
import { usageCostParts } from './migrations/0017-usage-cost-parts.js';
import { usageRollups } from './migrations/0018-usage-rollups.js';
import { requestLogIndexes } from './migrations/0019-request-log-indexes.js';
import { eventErrorCode } from './migrations/0020-event-error-code.js';
import { requestAttempts } from './migrations/0021-request-attempts.js';
import { mcpServers } from './migrations/0022-mcp-servers.js';
import { responseChannels } from './migrations/0024-response-channels.js';
import { responseCache } from './migrations/0023-response-cache.js';
import { rollupTokenParts } from './migrations/0025-rollup-token-parts.js';
import { channelState } from './migrations/0026-channel-state.js';
import { cacheHitRollups } from './migrations/0027-cache-hit-rollups.js';
import { cacheMode } from './migrations/0028-cache-mode.js';
import { sharedCacheFill } from './migrations/0029-shared-cache-fill.js';
import { keyOperatorLimits } from './migrations/0030-key-operator-limits.js';
import { files } from './migrations/0031-files.js';
import { batches } from './migrations/0032-batches.js';
import { usageBatchId } from './migrations/0033-usage-batch-id.js';

/** Migrations in order; the names are what the migration table records. */
export const MIGRATIONS: Readonly<Record<string, Migration>> = { '0001-initial': initial, '0002-video-task-polls': videoTaskPolls, '0003-key-controls': keyControls,
  '0005-users-sessions': usersSessions,
  '0006-key-owner': keyOwner,
  '0007-task-submission': taskSubmission,
  '0008-key-parallel': keyParallel,
  '0009-request-log': requestLog,
  '0010-channel-settings': channelSettings,
  '0011-request-log-ids': requestLogIds,
  '0014-catalog-models': catalogModels,
  '0015-model-prices': modelPrices,
  '0016-runtime-channels': runtimeChannels,
  '0017-usage-cost-parts': usageCostParts,
  '0018-usage-rollups': usageRollups,
  '0019-request-log-indexes': requestLogIndexes,
  '0020-event-error-code': eventErrorCode,
  '0021-request-attempts': requestAttempts,
  '0022-mcp-servers': mcpServers,
  '0023-response-cache': responseCache,
  '0024-response-channels': responseChannels,
  '0025-rollup-token-parts': rollupTokenParts,
  '0026-channel-state': channelState,
  '0027-cache-hit-rollups': cacheHitRollups,
  '0028-cache-mode': cacheMode,
  '0029-shared-cache-fill': sharedCacheFill,
  '0030-key-operator-limits': keyOperatorLimits,
  '0031-files': files,
  '0032-batches': batches,
  '0033-usage-batch-id': usageBatchId,
};

const provider: MigrationProvider = { getMigrations: async () => MIGRATIONS };

export type Db = Kysely<Database>;

/** PostgreSQL when `DATABASE_URL` is set, otherwise the embedded SQLite file in the data directory. */
/** The embedded store's file in the data directory. */
export const SQLITE_FILE = 'gateway.sqlite';

export function connectDatabase(config: { databaseUrl: string | undefined; dataDir: string }): Promise<Db> {
  return config.databaseUrl ? connectPostgres(config.databaseUrl) : connectSqlite(config.dataDir);
}

/** Opens the embedded SQLite store in the data directory and brings its schema up to date. */
export async function connectSqlite(dataDir: string): Promise<Db> {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new SqliteDatabase(join(dataDir, SQLITE_FILE));
  // A new file gives deleted rows' pages back to the file system (db/retention.ts); this only
  // takes before the first table (an older file needs a one-time VACUUM: docs/deployment.md).
  if (sqlite.pragma('page_count', { simple: true }) === 0) sqlite.pragma('auto_vacuum = INCREMENTAL');
  sqlite.pragma('journal_mode = WAL');
  // The WAL file shrinks back after a checkpoint instead of keeping its largest size.
  sqlite.pragma('journal_size_limit = 67108864');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // The batch writers' thread (db/sqlite-writer.ts) starts with its first batch and stops when the
  // store closes; a GATEWAY_WORKERS worker has none: its batches commit on the primary's (db/primary-writer.ts).
  const writer = cluster.isWorker ? new PrimaryWriterClient() : new SqliteWriter(join(dataDir, SQLITE_FILE));
  const db = new Kysely<Database>({ dialect: new StoreSqliteDialect({ database: sqlite }, writer) });
  sqliteHandles.set(db, sqlite);
  sqliteWriters.set(db, writer);
  await migrate(db);
  return db;
}

const sqliteHandles = new WeakMap<Db, SqliteDatabase.Database>();
const sqliteWriters = new WeakMap<Db, BatchWriter>();

/** Kysely's SQLite dialect, whose `destroy` first lets the writer thread commit what it was given, then stops it. */
class StoreSqliteDialect extends SqliteDialect {
  constructor(config: ConstructorParameters<typeof SqliteDialect>[0], private readonly writer: BatchWriter) {
    super(config);
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const destroy = driver.destroy.bind(driver);
    driver.destroy = async () => {
      await this.writer.close();
      await destroy();
    };
    return driver;
  }
}

/**
 * The embedded store's batch writer thread (issue 36): the usage ledger and the request log write
 * their batches through it, never on the request thread. Undefined on PostgreSQL (its client is
 * asynchronous already).
 */
export const sqliteWriterOf = (db: Db): BatchWriter | undefined => sqliteWriters.get(db);

/**
 * The better-sqlite3 handle under an embedded store, for the one write hot enough to skip
 * Kysely (usage events: a statement prepared once, run per row in one transaction).
 */
export const sqliteHandleOf = (db: Db): SqliteDatabase.Database | undefined => sqliteHandles.get(db);

/** pg loads when a database URL is configured: the embedded default never pays for it. */
let pgModule: typeof pg | undefined;
const loadPg = (): typeof pg => (pgModule ??= createRequire(import.meta.url)('pg') as typeof pg);

/**
 * pg returns int8 (our bigint timestamps, ids, counts) and numeric (sum() over bigint) as strings,
 * because they can exceed 2^53. Ours never do (millisecond times, token counts), and SQLite gives
 * numbers, so both come back as numbers here: the same Kysely code reads the same types on both.
 * Set on this pool only, not on pg's global parsers.
 */
function numberTypes(types: typeof pg.types): pg.CustomTypesConfig {
  const { builtins, getTypeParser } = types;
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === builtins.INT8 || oid === builtins.NUMERIC ? (value: string) => Number(value) : getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
  };
}

/**
 * Connects to PostgreSQL and brings the schema up to date. Several instances may start at once:
 * one migrates and the others wait, then find nothing left to do (`migrate`).
 */
export async function connectPostgres(url: string, poolSize = 10): Promise<Db> {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: postgresPool(url, poolSize) }) });
  try {
    await migrate(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/** A pool that reads int8/numeric as numbers; `DATABASE_URL` may carry `?sslmode=…` and the like. */
export function postgresPool(url: string, max: number): pg.Pool {
  const { Pool, types } = loadPg();
  const pool = new Pool({ connectionString: url, max, types: numberTypes(types), connectionTimeoutMillis: 3_000 });
  // An idle client losing its connection (database restart) must not crash the process; nor may a
  // checked-out one between its queries (inside a transaction), which pg-pool leaves without a
  // listener: its next query fails and the pool drops it on release.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Brings the schema up to date (or, for upgrade tests, up to the migration named `upTo`), all or
 * nothing (issue 34): every pending migration and the rows that record them commit together, so a
 * start killed at any point leaves the schema it found and the next start runs the upgrade again.
 * PostgreSQL: Kysely's migrator does this itself, in one transaction under a session advisory
 * lock (instances starting together wait for each other). SQLite: Kysely runs migrations outside
 * any transaction (its adapter declines transactional DDL, which SQLite has), so the whole run is
 * wrapped here in one `BEGIN IMMEDIATE` on the store's single connection; the write lock is taken
 * up front, so a second process (a CLI command) waits instead of migrating alongside. No migration
 * may run a statement SQLite refuses inside a transaction (VACUUM, `PRAGMA journal_mode` and
 * `auto_vacuum`: those are set in connectSqlite, before this).
 */
export async function migrate(db: Db, upTo?: string): Promise<void> {
  if (dialectOf(db) === 'postgres') return runMigrator(db, upTo);
  await db.connection().execute(async (connection) => {
    await sql`begin immediate`.execute(connection);
    try {
      await runMigrator(connection, upTo);
      await sql`commit`.execute(connection);
    } catch (error) {
      await sql`rollback`.execute(connection).catch(() => undefined);
      throw error;
    }
  });
}

async function runMigrator(db: Db, upTo: string | undefined): Promise<void> {
  // Names compared by code unit: Kysely's default (localeCompare) loads ICU collation data, ~4 MB of RSS.
  const nameComparator = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const migrator = new Migrator({ db, provider, nameComparator });
  const { error, results } = await (upTo === undefined ? migrator.migrateToLatest() : migrator.migrateTo(upTo));
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`database migration ${failed} failed: ${String(error)}`);
  }
}

/** Any fixed 64-bit number; pg_advisory_lock keys are per database. */
const STARTUP_LOCK = 0x6777_7374_6172_74n; // "gwstart"

/**
 * Runs `fn` (first-start bootstrap: the bootstrap key, the admin token) while no other instance
 * on the same PostgreSQL database is in it, so instances starting together neither create two
 * first-start keys nor trip over each other's inserts. The lock is a session advisory lock on one
 * pooled connection; it is released at the end, or by PostgreSQL when the process dies. SQLite
 * serves one process, so there `fn` just runs.
 */
export async function withStartupLock<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  if (dialectOf(db) !== 'postgres') return fn();
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${sql.lit(STARTUP_LOCK)})`.execute(connection);
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${sql.lit(STARTUP_LOCK)})`.execute(connection);
    }
  });
}
