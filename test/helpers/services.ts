import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { postgresPool } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';

/**
 * The real PostgreSQL and Redis the multi-instance tests use (.ci/run starts both). PostgreSQL
 * connects as `root` with trust auth; each test file gets a database of its own.
 */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://root@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestDatabase {
  name: string;
  url: string;
  /** A direct handle on the database, for assertions on rows. */
  db: Kysely<Database>;
  drop(): Promise<void>;
}

async function onServer<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`PostgreSQL is not reachable at ${TEST_POSTGRES_URL} (start it, as .ci/run does, or set TEST_POSTGRES_URL): ${String(error)}`);
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** `CREATE DATABASE gw_test_<random>`: parallel test files never share tables or locks. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  await onServer((client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: postgresPool(url.toString(), 2) }) });
  return {
    name,
    url: url.toString(),
    db,
    async drop() {
      await db.destroy();
      // FORCE ends connections a killed instance may have left behind.
      await onServer((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/** Retries `probe` until it returns something (not undefined) or `timeoutMs` passes. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 5_000, intervalMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
