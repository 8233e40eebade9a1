import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayConfig } from '../../src/config/schema.js';
import { connectPostgres } from '../../src/db/connect.js';
import { startGateway } from '../../src/main.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../helpers/services.js';
import { pollUntil } from '../helpers/video.js';

const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
const models = (gateway: { url: string }, secret: string) => call(gateway, 'GET', '/v1/models', undefined, bearer(secret));

/** Asks every `everyMs` until the key is refused; returns the milliseconds that took. */
async function msUntilRefused(gateway: TestGateway, secret: string, since: number, limitMs = 3_000, everyMs = 10): Promise<number> {
  for (;;) {
    const status = (await models(gateway, secret)).status;
    const elapsed = Date.now() - since;
    if (status === 401) return elapsed;
    expect(status).toBe(200);
    if (elapsed > limitMs) throw new Error(`still accepted after ${elapsed} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Two instances on one PostgreSQL database, one Redis and one media directory (a shared volume). */
describe('two instances behind one load balancer', () => {
  let database: TestDatabase;
  let dataDir: string;
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-shared-'));
    const env = { databaseUrl: database.url, redisUrl: TEST_REDIS_URL };
    // Both start at once against the empty database: one migrates, the other waits for it.
    [a, b] = await Promise.all([startTestGateway({ dataDir, env, file: { simulator: { video_task_ms: 300 } } }), startTestGateway({ dataDir, env, file: { simulator: { video_task_ms: 300 } } })]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop({ keepData: true }), b?.stop({ keepData: true })]);
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('started together on an empty database: one bootstrap key, one admin token', async () => {
    expect(await database.db.selectFrom('api_keys').select('id').execute()).toHaveLength(1);
    // One admin token, and the record of which key the bootstrap variable made.
    expect((await database.db.selectFrom('settings').select('name').execute()).map((row) => row.name).sort()).toEqual(['admin_token_sha256', 'bootstrap_key_id']);
    expect((await models(a, TEST_KEY)).status).toBe(200);
    expect((await models(b, TEST_KEY)).status).toBe(200);
  });

  it('a key created on one instance works on the other', async () => {
    const { secret } = await a.deps.keys.create({ name: 'made-on-a' });
    expect((await models(b, secret)).status).toBe(200);
    expect((await call(b, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }, bearer(secret))).status).toBe(200);
  });

  it('a key revoked on one instance is refused by the other at once (Redis), not when its cache runs out', async () => {
    const { key, secret } = await a.deps.keys.create({ name: 'revoked-on-a' });
    // B has just looked the key up: its cache holds it as valid for the next second.
    expect((await models(b, secret)).status).toBe(200);
    const revokedAt = Date.now();
    expect(await a.deps.keys.revoke(key.id)).toBe(true);
    const elapsed = await msUntilRefused(b, secret, revokedAt);
    // Well under the cache's one-second lifetime: only the invalidation message explains it.
    expect(elapsed).toBeLessThan(300);
    const refused = await models(b, secret);
    expect(refused.json.error.code).toBe('invalid_api_key');
  });

  it('a video task created on one instance is read, completed and served through the other', async () => {
    const created = await call(a, 'POST', '/v1/video/generations', { model: 'zeta-1.0-r2v', prompt: 'A kite over the sea', images: ['https://example.com/ref.png'] });
    expect(created.status, created.text).toBe(200);
    const seen = await pollUntil(b, `/v1/video/generations/${created.json.id}`, (task) => task.status === 'completed' || task.status === 'failed');
    expect(seen.at(-1)).toMatchObject({ id: created.json.id, status: 'completed', progress: 100 });
    const onA = await call(a, 'GET', `/v1/video/generations/${created.json.id}`);
    expect(onA.json).toMatchObject({ status: 'completed', video_url: expect.any(String) });
    // Whichever instance downloaded the file, both serve it: the media directory is shared.
    const path = new URL(onA.json.video_url as string).pathname;
    for (const gateway of [a, b]) {
      const file = await fetch(gateway.url + path);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('video/mp4');
    }
  });

  it('an image generated on one instance is served by the other', async () => {
    const generated = await call(a, 'POST', '/v1/images/generations', { model: 'gamma-3.1-flash-image', prompt: 'A red kite' });
    expect(generated.status, generated.text).toBe(200);
    const path = new URL(generated.json.data[0].url as string).pathname;
    const fromB = await fetch(b.url + path);
    expect(fromB.status).toBe(200);
    expect(fromB.headers.get('content-type')).toBe('image/png');
  });
});

describe('instances without Redis', () => {
  let database: TestDatabase;
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    database = await createTestDatabase();
    a = await startTestGateway({ env: { databaseUrl: database.url } });
    b = await startTestGateway({ env: { databaseUrl: database.url } });
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  it('still refuse a key revoked elsewhere within a second (the key cache lives one second)', async () => {
    const { key, secret } = await a.deps.keys.create({ name: 'no-redis' });
    expect((await models(b, secret)).status).toBe(200);
    const revokedAt = Date.now();
    expect(await a.deps.keys.revoke(key.id)).toBe(true);
    expect(await msUntilRefused(b, secret, revokedAt, 3_000, 25)).toBeLessThanOrEqual(1_050);
  });
});

describe('first start of several instances with no configured secrets', () => {
  let database: TestDatabase;
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  it('prints one API key and one admin token in all, and every instance accepts that key', async () => {
    database = await createTestDatabase();
    // Migrated beforehand, so that all instances reach the first-start step at the same moment.
    await (await connectPostgres(database.url)).destroy();
    const lines: string[] = [];
    const config = (): GatewayConfig => {
      const dataDir = mkdtempSync(join(tmpdir(), 'gateway-first-'));
      dirs.push(dataDir);
      return { port: 0, host: '127.0.0.1', dataDir, publicUrl: undefined, bootstrapKey: undefined, adminToken: undefined, bodyLimitBytes: 1024 * 1024, logLevel: 'silent', workers: 1,
        databaseUrl: database.url, redisUrl: undefined, file: {} };
    };
    const gateways = await Promise.all([1, 2, 3, 4].map(() => startGateway(config(), { announce: (line) => lines.push(line) })));
    try {
      expect(lines.filter((l) => l.startsWith('API key'))).toHaveLength(1);
      expect(lines.filter((l) => l.startsWith('Admin token'))).toHaveLength(1);
      const secret = /sk-gw-\S+/.exec(lines.join('\n'))![0];
      for (const gateway of gateways) expect((await models(gateway, secret)).status).toBe(200);
    } finally {
      await Promise.all(gateways.map((g) => g.close()));
    }
  });
});
