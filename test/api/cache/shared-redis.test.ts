import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../../helpers/services.js';

const AUTH = { authorization: `Bearer ${TEST_KEY}` };
const ask = (content: string) => ({ model: 'delta-4.1', messages: [{ role: 'user', content }] });

/** Two gateway instances keep the response cache in one Redis (GATEWAY_CACHE_STORE=redis, issue 32). */
describe('response cache in Redis, shared by two instances (issue 32)', () => {
  const prefix = `test:cache:${randomUUID()}:`;
  let database: TestDatabase;
  let redis: Redis;
  let first: TestGateway;
  let second: TestGateway;
  const upstreamCalls = (gateway: TestGateway) => gateway.deps.simulators.get('simulator-openai')!.requests.length;
  /** The write happens after the answer is sent: wait until Redis holds this many entries. */
  const entriesStored = async (count: number) => {
    for (let i = 0; i < 100 && (await redis.hlen(`${prefix}meta`)) < count; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await redis.hlen(`${prefix}meta`)).toBe(count);
  };

  beforeAll(async () => {
    redis = new Redis(TEST_REDIS_URL);
    // One database for the keys (the instances must agree on them); the cache is in Redis, not in it.
    database = await createTestDatabase();
    const file = { cache: { enabled: true, redis_prefix: prefix } };
    const env = { databaseUrl: database.url, redisUrl: TEST_REDIS_URL, cacheStore: 'redis' as const };
    first = await startTestGateway({ file, env });
    second = await startTestGateway({ file, env });
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await database?.drop();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('an answer stored through one instance is a hit on the other, from Redis, without an upstream call', async () => {
    const miss = await call(first, 'POST', '/v1/chat/completions', ask('shared through redis'));
    expect(miss.headers.get('x-cache')).toBe('MISS');
    await entriesStored(1);
    const before = upstreamCalls(second);
    const hit = await call(second, 'POST', '/v1/chat/completions', { ...ask('shared through redis'), stream: true, stream_options: { include_usage: true } });
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(upstreamCalls(second)).toBe(before);
    const again = await call(second, 'POST', '/v1/chat/completions', ask('shared through redis'));
    expect(again.text).toBe(miss.text);
    // Nothing went to the database's table.
    expect(await first.deps.db.selectFrom('response_cache').select('id').execute()).toHaveLength(0);
  });

  it('Redis expires an entry at its TTL; a key holder purges its scope on every instance', async () => {
    await call(first, 'POST', '/v1/chat/completions', ask('one second only'), { ...AUTH, 'x-gateway-cache-ttl': '1' });
    await call(first, 'POST', '/v1/chat/completions', ask('until purged'));
    await entriesStored(3);
    expect((await call(second, 'POST', '/v1/chat/completions', ask('one second only'))).headers.get('x-cache')).toBe('HIT');
    await new Promise((r) => setTimeout(r, 1100));
    // Redis dropped the entry itself (the background sweep runs once a minute by default).
    expect(await redis.keys(`${prefix}e:*`)).toHaveLength(2);
    expect((await call(second, 'POST', '/v1/chat/completions', ask('one second only'))).headers.get('x-cache')).toBe('MISS');

    const purged = await call(second, 'DELETE', '/v1/gateway/cache', undefined, AUTH);
    expect(purged.json.deleted).toBeGreaterThanOrEqual(2);
    expect((await call(first, 'POST', '/v1/chat/completions', ask('until purged'))).headers.get('x-cache')).toBe('MISS');
  });

  it('the background sweep drops expired entries from the indexes and keeps the size cap, oldest first', async () => {
    const store = first.deps.responseCache.store;
    await store.purge({});
    expect(await store.totalBytes()).toBe(0);
    for (const question of ['oldest', 'middle', 'newest']) {
      await call(first, 'POST', '/v1/chat/completions', ask(`cap ${question}`));
      await new Promise((r) => setTimeout(r, 5));
    }
    await entriesStored(3);
    const total = await store.totalBytes();
    expect(total).toBeGreaterThan(0);
    await store.sweep(Date.now(), total - 1);
    expect(await redis.hlen(`${prefix}meta`)).toBe(2);
    expect(await store.totalBytes()).toBeLessThan(total);
    expect((await call(second, 'POST', '/v1/chat/completions', ask('cap newest'))).headers.get('x-cache')).toBe('HIT');
    expect((await call(second, 'POST', '/v1/chat/completions', ask('cap oldest'))).headers.get('x-cache')).toBe('MISS');

    // An expired entry's index rows stay until the sweep, which removes them.
    await call(first, 'POST', '/v1/chat/completions', ask('expires before the sweep'), { ...AUTH, 'x-gateway-cache-ttl': '1' });
    await entriesStored(4);
    await new Promise((r) => setTimeout(r, 1100));
    expect(await store.sweep(Date.now(), Number.MAX_SAFE_INTEGER)).toBe(1);
    expect(await redis.hlen(`${prefix}meta`)).toBe(3);
  });
});
