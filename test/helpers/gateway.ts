import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileConfig, GatewayConfig } from '../../src/config/schema.js';
import { startGateway, type RunningGateway } from '../../src/main.js';
import type { FileStore } from '../../src/files/file-store.js';
import { createTestDatabase, type TestDatabase } from './services.js';

export const TEST_KEY = 'sk-gw-test-key-0123456789abcdef';
export const TEST_ADMIN_TOKEN = 'gwadm-test-admin-token';

export interface TestGateway extends RunningGateway {
  dataDir: string;
  /** Stops the gateway and removes its data directory (unless kept for a restart). */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * `GATEWAY_TEST_DATABASE=postgres npx vitest run …` runs any gateway test on PostgreSQL: each data
 * directory gets a fresh database (kept across a `keepData` restart), dropped when it is removed.
 */
const postgresByDataDir = new Map<string, TestDatabase>();

async function postgresFor(dataDir: string): Promise<string> {
  let database = postgresByDataDir.get(dataDir);
  if (!database) {
    database = await createTestDatabase();
    postgresByDataDir.set(dataDir, database);
  }
  return database.url;
}

/** A real gateway on 127.0.0.1, port 0, with its own SQLite directory and simulator upstreams. */
export async function startTestGateway(options: { dataDir?: string; file?: FileConfig; env?: Partial<GatewayConfig>; files?: FileStore } = {}): Promise<TestGateway> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const onPostgres = process.env.GATEWAY_TEST_DATABASE === 'postgres' && options.env?.databaseUrl === undefined;
  const config: GatewayConfig = {
    port: 0,
    host: '127.0.0.1',
    dataDir,
    publicUrl: undefined,
    bootstrapKey: TEST_KEY,
    adminToken: TEST_ADMIN_TOKEN,
    bodyLimitBytes: 32 * 1024 * 1024,
    logLevel: 'silent',
    workers: 1,
    databaseUrl: undefined,
    redisUrl: undefined,
    file: options.file ?? {},
    ...options.env,
    ...(onPostgres ? { databaseUrl: await postgresFor(dataDir) } : {}),
  };
  const gateway = await startGateway(config, { announce: () => undefined, ...(options.files ? { files: options.files } : {}) });
  return {
    ...gateway,
    dataDir,
    async stop({ keepData = false } = {}) {
      await gateway.close();
      if (keepData) return;
      rmSync(dataDir, { recursive: true, force: true });
      await postgresByDataDir.get(dataDir)?.drop();
      postgresByDataDir.delete(dataDir);
    },
  };
}

/** fetch with the test key as a Bearer token; JSON-encodes object bodies. */
export async function call(
  gateway: { url: string },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${TEST_KEY}` },
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await fetch(gateway.url + path, init);
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}
