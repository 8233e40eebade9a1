import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { migrate, postgresPool, SQLITE_FILE } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';
import { TEST_POSTGRES_URL } from '../helpers/services.js';

/** One store the upgrade child runs on: `target` is its data directory or database URL. */
export interface StoreCopy {
  target: string;
  /** Tables, columns, indexes and triggers, one line each, sorted: equal lines, equal schemas. */
  schema(): Promise<string[]>;
  /** What the upgrade must keep (and the rollups it must build exactly once). */
  facts(): Promise<StoreFacts>;
  /** The migrations the store records as done. */
  migrations(): Promise<string[]>;
  dispose(): Promise<void>;
}

export interface StoreFacts {
  events: number;
  promptTokens: number;
  details: number;
  /** Events counted by the hourly rollups (0018): equal to `events` when built once. */
  rolledUpEvents: number | null;
}

/** A store made by an older version, copied as often as the test needs a new one. */
export interface OldStore {
  copy(): Promise<StoreCopy>;
  empty(): Promise<StoreCopy>;
  dispose(): Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);

/**
 * `events` usage events over the last months, a failed one in ten, and request details for every
 * other event (unique request ids: migration 0011 keeps them all). One statement that both
 * stores run: a recursive count, no per-row round trips.
 */
async function seed(db: Kysely<Database>, events: number): Promise<void> {
  await sql`insert into usage_events (request_id, key_id, model, channel, family, status, outcome, prompt_tokens, completion_tokens,
      reasoning_tokens, images, video_seconds, cost_usd, latency_ms, ttft_ms, created_at)
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${sql.lit(events)})
    select 'old-' || i, 'key_' || (i % 7), case when i % 3 = 0 then 'm-b' else 'm-a' end, 'ch-' || (i % 2), 'chat-completions',
      case when i % 10 = 0 then 429 else 200 end, case when i % 10 = 0 then 'error' else 'success' end, i % 1000, 7, 0, 0, 0, 0.001, 12,
      case when i % 2 = 0 then 5 else null end, ${sql.lit(T0)} + i * cast(60000 as bigint)
    from n`.execute(db);
  await sql`insert into request_details (request_id, created_at, retries, fallbacks, error_code, error_message, request_headers, request_body, response_body)
    select request_id, created_at, 0, 0, case when status = 429 then 'rate_limit_exceeded' else null end, null, '{}', '{"model":"m-a"}', null
    from usage_events where id % 2 = 0`.execute(db);
}

async function factsOf(db: Kysely<Database>): Promise<StoreFacts> {
  const count = async (query: ReturnType<typeof sql<{ n: number | string | null }>>) => {
    const value = (await query.execute(db)).rows[0]?.n;
    return value === null || value === undefined ? null : Number(value);
  };
  const tables = (await db.introspection.getTables()).map((table) => table.name);
  return {
    events: (await count(sql`select count(*) as n from usage_events`)) ?? 0,
    promptTokens: (await count(sql`select sum(prompt_tokens) as n from usage_events`)) ?? 0,
    details: (await count(sql`select count(*) as n from request_details`)) ?? 0,
    rolledUpEvents: tables.includes('usage_rollups') ? await count(sql`select sum(events) as n from usage_rollups where period = 'hour' and grain = 'full'`) : null,
  };
}

async function migrationsOf(db: Kysely<Database>): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.rows.map((row) => row.name);
}

async function sqliteSchema(db: Kysely<Database>): Promise<string[]> {
  const rows = await sql<{ type: string; name: string; sql: string | null }>`
    select type, name, sql from sqlite_master where name not like 'sqlite_%' order by type, name`.execute(db);
  return rows.rows.map((row) => `${row.type} ${row.name}: ${row.sql ?? ''}`);
}

async function postgresSchema(db: Kysely<Database>): Promise<string[]> {
  const columns = await sql<{ line: string }>`select 'column ' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') as line
    from information_schema.columns where table_schema = 'public'`.execute(db);
  const indexes = await sql<{ line: string }>`select 'index ' || indexname || ': ' || indexdef as line from pg_indexes where schemaname = 'public'`.execute(db);
  const triggers = await sql<{ line: string }>`select 'trigger ' || trigger_name || ' ' || event_manipulation || ' ' || action_statement as line
    from information_schema.triggers where trigger_schema = 'public'`.execute(db);
  const functions = await sql<{ line: string }>`select 'function ' || p.proname || ': ' || md5(p.prosrc) as line
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public'`.execute(db);
  return [...columns.rows, ...indexes.rows, ...triggers.rows, ...functions.rows].map((row) => row.line).sort();
}

/** Each check opens the store anew and closes it: the upgrade child must find it unused. */
function storeCopy(target: string, open: () => Kysely<Database>, schemaOf: (db: Kysely<Database>) => Promise<string[]>, dispose: () => Promise<void>): StoreCopy {
  const using = async <T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T> => {
    const db = open();
    try {
      return await fn(db);
    } finally {
      await db.destroy();
    }
  };
  return { target, schema: () => using(schemaOf), facts: () => using(factsOf), migrations: () => using(migrationsOf), dispose };
}

/** An old SQLite data directory, made by the real migrations up to `upTo`, then seeded. */
export async function oldSqliteStore(upTo: string, events: number): Promise<OldStore> {
  const root = mkdtempSync(join(tmpdir(), 'gateway-killed-upgrade-'));
  const open = (dir: string) => new Kysely<Database>({ dialect: new SqliteDialect({ database: new SqliteDatabase(join(dir, SQLITE_FILE)) }) });
  const template = join(root, 'template');
  mkdirSync(template);
  const old = open(template);
  await migrate(old, upTo);
  await seed(old, events);
  // Closing the last connection checkpoints the WAL into the file: one file to copy.
  await old.destroy();
  let copies = 0;
  const make = (withTemplate: boolean): StoreCopy => {
    const dir = join(root, `copy-${++copies}`);
    mkdirSync(dir);
    if (withTemplate) copyFileSync(join(template, SQLITE_FILE), join(dir, SQLITE_FILE));
    return storeCopy(dir, () => open(dir), sqliteSchema, async () => rmSync(dir, { recursive: true, force: true }));
  };
  return { copy: async () => make(true), empty: async () => make(false), dispose: async () => rmSync(root, { recursive: true, force: true }) };
}

async function onServer<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const databaseUrl = (name: string): string => {
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
};

/** An old PostgreSQL database; each copy is `CREATE DATABASE … TEMPLATE` of it, dropped after. */
export async function oldPostgresStore(upTo: string, events: number): Promise<OldStore> {
  const prefix = `gw_test_${randomBytes(4).toString('hex')}`;
  const template = `${prefix}_old`;
  const created: string[] = [];
  const createDatabase = async (name: string, from?: string) => {
    await onServer((client) => client.query(`CREATE DATABASE ${name}${from ? ` TEMPLATE ${from}` : ''}`));
    created.push(name);
  };
  const open = (name: string) => new Kysely<Database>({ dialect: new PostgresDialect({ pool: postgresPool(databaseUrl(name), 1) }) });
  const drop = (name: string) => onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined);
  await createDatabase(template);
  const old = open(template);
  await migrate(old, upTo);
  await seed(old, events);
  await old.destroy();
  let copies = 0;
  const make = async (withTemplate: boolean): Promise<StoreCopy> => {
    const name = `${prefix}_${++copies}`;
    await createDatabase(name, withTemplate ? template : undefined);
    return storeCopy(databaseUrl(name), () => open(name), postgresSchema, () => drop(name));
  };
  return {
    copy: () => make(true),
    empty: () => make(false),
    dispose: async () => {
      for (const name of created) await drop(name);
    },
  };
}
