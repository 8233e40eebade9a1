import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort, startRedis } from '../helpers/redis-server.js';

const chat = { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 };

/**
 * A Redis that answers late (issue 36: under load a reply can take longer than the 500 ms a
 * request waits for it). The instance decides alone after 500 ms; when Redis then counts the
 * step anyway, the shared counter is corrected: a step refused here is given back, and one
 * admitted here is not added a second time at the next re-sync. A Redis server of the test's own,
 * paused with CLIENT PAUSE, so no other test's Redis is touched.
 */
describe('rate limits when Redis answers late', () => {
  let redisServer: ChildProcess;
  let redis: Redis;
  let gateway: TestGateway;
  beforeAll(async () => {
    const port = await freePort();
    redisServer = await startRedis(port);
    redis = new Redis({ port, maxRetriesPerRequest: 1 });
    gateway = await startTestGateway({ env: { redisUrl: `redis://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await gateway?.stop();
    redis?.disconnect();
    redisServer?.kill('SIGKILL');
  });

  it('a step counted after the instance stopped waiting leaves the shared counter exact, also after a re-sync', async () => {
    const { key, secret } = await gateway.deps.keys.create({ name: 'late', rpm: 3 });
    const as = { authorization: `Bearer ${secret}` };
    const counter = `gw:rl:requests:${key.id}:delta-4.1`;
    for (let i = 0; i < 2; i++) expect((await call(gateway, 'POST', '/v1/chat/completions', chat, as)).status).toBe(200);
    expect(await redis.get(counter)).toBe('2');

    // Every command waits 900 ms: both requests stop waiting at 500 ms and the instance decides
    // alone, within what Redis last said was left (one request).
    await redis.call('CLIENT', 'PAUSE', '900', 'ALL');
    const statuses = (await Promise.all([0, 1].map(() => call(gateway, 'POST', '/v1/chat/completions', chat, as)))).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 429]);
    // Redis then counts both (4); the one refused here is given back: 3 used, 3 admitted.
    await expect.poll(async () => redis.get(counter), { timeout: 5_000 }).toBe('3');

    // A reconnect makes the instance add what Redis missed while it could not be told: nothing
    // here, since Redis counted the admitted step after all.
    const syncsBefore = await instanceSyncs(redis);
    await redis.call('CLIENT', 'KILL', 'TYPE', 'normal');
    await expect.poll(async () => instanceSyncs(redis), { timeout: 10_000 }).toBeGreaterThan(syncsBefore);
    expect(await redis.get(counter)).toBe('3');
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat, as)).status).toBe(429);
  });
});

/** How many times the one gateway instance has re-synced (the value of its presence key). */
async function instanceSyncs(redis: Redis): Promise<number> {
  const [name] = await redis.keys('gw:instance:*').catch(() => [] as string[]);
  return name ? Number(await redis.get(name).catch(() => -1)) : -1;
}
