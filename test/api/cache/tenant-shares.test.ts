import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createKey } from '../../helpers/admin.js';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createTestDatabase, eventually, TEST_REDIS_URL, type TestDatabase } from '../../helpers/services.js';

const MAX_BYTES = 4096;
const YEAR_S = 31_536_000;
const ask = (content: string) => ({ model: 'delta-4.1', messages: [{ role: 'user', content }] });

interface Store {
  start(file: Record<string, unknown>): Promise<TestGateway>;
  /** Entries the store holds. */
  entries(gateway: TestGateway): Promise<number>;
  stop(): Promise<void>;
}

const prefix = `test:shares:${randomUUID()}:`;
let database: TestDatabase | undefined;
let redis: Redis | undefined;
const rowCount = async (gateway: TestGateway) => (await gateway.deps.db.selectFrom('response_cache').select('id').execute()).length;
const stores: Array<[string, Store]> = [
  ['SQLite', { start: (file) => startTestGateway({ file }), entries: rowCount, stop: async () => undefined }],
  [
    'PostgreSQL',
    {
      start: async (file) => startTestGateway({ file, env: { databaseUrl: (database = await createTestDatabase()).url } }),
      entries: rowCount,
      stop: async () => database?.drop(),
    },
  ],
  [
    'Redis',
    {
      start: (file) => startTestGateway({ file: { ...file, cache: { ...(file.cache as object), redis_prefix: prefix } }, env: { redisUrl: TEST_REDIS_URL, cacheStore: 'redis' } }),
      entries: async () => (redis ??= new Redis(TEST_REDIS_URL)).hlen(`${prefix}meta`),
      async stop() {
        const keys = await redis!.keys(`${prefix}*`);
        if (keys.length > 0) await redis!.del(...keys);
        redis!.disconnect();
      },
    },
  ],
];

/**
 * Issue 44 item 4: the response cache's size cap is shared out by tenant (scope). One tenant
 * filling the cache with long-lived entries loses its own oldest entries past the cap; another
 * tenant's entry, written before all of them, stays a hit.
 */
describe.each(stores)('per-tenant shares of the response cache on %s (issue 44)', (_name, store) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await store.start({ cache: { enabled: true, max_bytes: MAX_BYTES, sweep_interval_seconds: 3600 } });
  });
  afterAll(async () => {
    await gateway?.stop();
    await store.stop();
  });

  it("a tenant filling the cache with one-year entries does not evict another tenant's entry", async () => {
    const a = await createKey(gateway, { name: 'filler' });
    const b = await createKey(gateway, { name: 'quiet' });
    const first = await call(gateway, 'POST', '/v1/chat/completions', ask('the quiet tenant asks once'), bearer(b.key));
    expect(first.headers.get('x-cache')).toBe('MISS');
    await eventually(async () => ((await store.entries(gateway)) === 1 ? true : undefined));

    const fill = (i: number) => call(gateway, 'POST', '/v1/chat/completions', ask(`filler question number ${i}`), { ...bearer(a.key), 'x-gateway-cache-ttl': String(YEAR_S) });
    expect((await fill(0)).status).toBe(200);
    await eventually(async () => ((await store.entries(gateway)) === 2 ? true : undefined));
    // Twice the cap of the filler's one-year entries, written in a few parallel rounds.
    const entryBytes = (await gateway.deps.responseCache.store.totalBytes()) / 2;
    const written = 1 + Math.ceil((2 * MAX_BYTES) / entryBytes);
    for (let i = 1; i < written; i += 8) {
      const answers = await Promise.all(Array.from({ length: Math.min(8, written - i) }, (_, j) => fill(i + j)));
      for (const answer of answers) expect(answer.status, answer.text).toBe(200);
    }
    await eventually(async () => ((await store.entries(gateway)) === written + 1 ? true : undefined));
    expect(await gateway.deps.responseCache.store.totalBytes()).toBeGreaterThan(MAX_BYTES);

    await gateway.deps.responseCache.sweep();
    expect(await gateway.deps.responseCache.store.totalBytes()).toBeLessThanOrEqual(MAX_BYTES);
    expect(await store.entries(gateway)).toBeLessThan(written + 1);
    const again = await call(gateway, 'POST', '/v1/chat/completions', ask('the quiet tenant asks once'), bearer(b.key));
    expect(again.headers.get('x-cache')).toBe('HIT');
    // The filler keeps its newest entries, within its share.
    const newest = await call(gateway, 'POST', '/v1/chat/completions', ask(`filler question number ${written - 1}`), bearer(a.key));
    expect(newest.headers.get('x-cache')).toBe('HIT');
  });
});
