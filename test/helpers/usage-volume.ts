import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql, type LogEvent } from 'kysely';
import { connectPostgres, connectSqlite, postgresPool, sqliteHandleOf, type Db } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';
import { rebuildRollups } from '../../src/db/usage-rollups.js';
import { createTestDatabase, type TestDatabase } from './services.js';

export const DAY_MS = 86_400_000;

/** A store with its own database for a test file: a temporary SQLite directory or a PostgreSQL database. */
export interface TestStore {
  kind: 'sqlite' | 'postgres';
  db: Db;
  /** The same store with every compiled query recorded, to EXPLAIN what a function really runs. */
  recording(): { db: Db; queries: CompiledQuery[] };
  close(): Promise<void>;
}

export async function openTestStore(kind: 'sqlite' | 'postgres'): Promise<TestStore> {
  let dataDir: string | undefined;
  let database: TestDatabase | undefined;
  let db: Db;
  if (kind === 'sqlite') {
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-volume-'));
    db = await connectSqlite(dataDir);
  } else {
    database = await createTestDatabase();
    db = await connectPostgres(database.url, 4);
  }
  const extra: Db[] = [];
  return {
    kind,
    db,
    recording() {
      const queries: CompiledQuery[] = [];
      const log = (event: LogEvent) => void queries.push(event.query);
      const recorder = new Kysely<Database>({
        dialect: kind === 'sqlite' ? new SqliteDialect({ database: sqliteHandleOf(db)! }) : new PostgresDialect({ pool: postgresPool(database!.url, 2) }),
        log,
      });
      if (kind === 'postgres') extra.push(recorder);
      return { db: recorder, queries };
    },
    async close() {
      for (const other of extra) await other.destroy();
      await db.destroy();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/** mulberry32: a seeded PRNG, so every run seeds the same rows. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Volume {
  busyKey: string;
  quietKey: string;
  busyUser: string;
  quietUser: string;
  /** A request id in the middle of the range. */
  requestId: string;
  rareModel: string;
  quietChannel: string;
}

const EVENT_COLUMNS = ['request_id', 'key_id', 'model', 'channel', 'family', 'status', 'outcome', 'prompt_tokens', 'completion_tokens', 'reasoning_tokens', 'images', 'video_seconds', 'cost_usd', 'latency_ms', 'ttft_ms', 'created_at', 'error_code'] as const;
const PG_TYPES = ['text', 'text', 'text', 'text', 'text', 'int8', 'text', 'int8', 'int8', 'int8', 'int8', 'float8', 'float8', 'int8', 'int8', 'int8', 'text'];

/**
 * An operator's month in miniature, straight into the tables: 20 users, 60 keys on Zipf traffic
 * (the busiest ~20%), two quiet keys of a quiet user (10 requests each), 10 models (one rare), 4
 * channels (one quiet), 4.5% failures with their error codes in request_details. Rollups are built
 * as the gateway builds them, and PostgreSQL's statistics are gathered as autovacuum would.
 */
export async function seedVolume(store: TestStore, { events, days, now = Date.now() }: { events: number; days: number; now?: number }): Promise<Volume> {
  const random = prng(22);
  const { db } = store;
  const users = Array.from({ length: 20 }, (_, i) => `usr_vol${i}`);
  await db.insertInto('users').values(users.map((id) => ({ id, email: `${id}@volume.example`, name: id, role: 'user' as const, created_at: now - days * DAY_MS }))).execute();
  const keys = Array.from({ length: 60 }, (_, i) => ({ id: `key_vol${String(i).padStart(2, '0')}`, owner: i >= 58 ? 'usr_vol19' : users[i % 19]!, weight: i >= 58 ? 0 : 1 / (i + 1) }));
  await db
    .insertInto('api_keys')
    .values(keys.map((k, i) => ({ id: k.id, name: k.id, prefix: `sk-vol${i}`, secret_hash: `hash-vol-${i}`, owner: k.owner, created_at: now - days * DAY_MS })))
    .execute();
  const total = keys.reduce((sum, k) => sum + k.weight, 0);
  const models = ['m-common', 'm-two', 'm-three', 'm-four', 'm-five', 'm-six', 'm-seven', 'm-eight', 'm-nine', 'm-rare'];
  const channels = ['ch-a', 'ch-b', 'ch-c', 'ch-quiet'];
  const quietAt = new Map<number, string>();
  for (let i = 0; i < 20; i++) quietAt.set(Math.floor(random() * events), keys[58 + (i % 2)]!.id);
  const rows: Array<Record<(typeof EVENT_COLUMNS)[number], unknown>> = [];
  const details: Array<[string, number, string | null]> = [];
  const start = now - days * DAY_MS;
  for (let i = 0; i < events; i++) {
    let key = quietAt.get(i);
    if (!key) {
      let r = random() * total;
      key = keys.find((k) => (r -= k.weight) < 0)?.id ?? keys[0]!.id;
    }
    const model = random() < 0.0005 ? 'm-rare' : models[Math.floor(Math.pow(random(), 2) * 9)]!;
    const channel = random() < 0.001 ? 'ch-quiet' : channels[models.indexOf(model) % 3]!;
    const r = random();
    const [status, outcome, code] = r < 0.015 ? [429, 'error', 'rate_limit_exceeded'] : r < 0.035 ? [502, 'error', 'upstream_error'] : r < 0.04 ? [400, 'error', 'invalid_request_error'] : r < 0.045 ? [200, 'stream_error', 'upstream_stream_error'] : [200, 'success', null];
    const createdAt = Math.floor(start + ((i + random()) * (days * DAY_MS - 60_000)) / events);
    const requestId = `vol_${i}`;
    rows.push({
      request_id: requestId, key_id: key, model, channel, family: 'chat-completions', status, outcome, prompt_tokens: outcome === 'error' ? 0 : 100 + (i % 50),
      completion_tokens: outcome === 'error' ? 0 : 20 + (i % 30), reasoning_tokens: 0, images: 0, video_seconds: 0, cost_usd: outcome === 'error' ? 0 : 0.001, latency_ms: 300, ttft_ms: i % 2 ? 80 : null, created_at: createdAt, error_code: code,
    });
    details.push([requestId, createdAt, code]);
  }
  if (store.kind === 'sqlite') {
    const sqlite = sqliteHandleOf(db)!;
    const insert = sqlite.prepare(`insert into usage_events (${EVENT_COLUMNS.join(', ')}) values (${EVENT_COLUMNS.map(() => '?').join(', ')})`);
    const detail = sqlite.prepare('insert into request_details (request_id, created_at, retries, fallbacks, error_code) values (?, ?, 0, 0, ?)');
    sqlite.transaction(() => {
      for (const row of rows) insert.run(EVENT_COLUMNS.map((c) => row[c]));
      for (const d of details) detail.run(...d);
    })();
    await rebuildRollups(db);
  } else {
    for (let at = 0; at < rows.length; at += 20_000) {
      const chunk = rows.slice(at, at + 20_000);
      const cast = EVENT_COLUMNS.map((c, i) => `$${i + 1}::${PG_TYPES[i]}[]`).join(', ');
      await db.executeQuery(CompiledQuery.raw(`insert into usage_events (${EVENT_COLUMNS.join(', ')}) select * from unnest(${cast})`, EVENT_COLUMNS.map((c) => chunk.map((row) => row[c]))));
      const part = details.slice(at, at + 20_000);
      await db.executeQuery(
        CompiledQuery.raw('insert into request_details (request_id, created_at, retries, fallbacks, error_code) select r, c, 0, 0, e from unnest($1::text[], $2::int8[], $3::text[]) as t(r, c, e)', [
          part.map((d) => d[0]),
          part.map((d) => d[1]),
          part.map((d) => d[2]),
        ]),
      );
    }
    await sql`analyze`.execute(db);
  }
  return { busyKey: keys[0]!.id, quietKey: keys[58]!.id, busyUser: keys[0]!.owner, quietUser: 'usr_vol19', requestId: `vol_${Math.floor(events / 2)}`, rareModel: 'm-rare', quietChannel: 'ch-quiet' };
}

/** The plan of a compiled query, as lines: SQLite's EXPLAIN QUERY PLAN details, PostgreSQL's EXPLAIN text. */
export async function planOf(store: TestStore, query: CompiledQuery): Promise<string[]> {
  if (store.kind === 'sqlite') {
    return (sqliteHandleOf(store.db)!.prepare(`explain query plan ${query.sql}`).all(...(query.parameters as unknown[])) as Array<{ detail: string }>).map((row) => row.detail);
  }
  const result = await store.db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
  return result.rows.map((row) => row['QUERY PLAN']);
}
