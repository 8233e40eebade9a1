import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { freePort, startRedis } from '../helpers/redis-server.js';

/**
 * Issue 13 item 10: Redis going away must not stall requests. The gateway fails fast to
 * per-instance limits, and shares them again once Redis is back. A Redis server of the test's own
 * (same binary CI starts) is killed and restarted on its port.
 */
const chat = { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] };

describe('Redis outage', () => {
  let port: number;
  let redis: ChildProcess;
  let gateway: TestGateway;
  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    gateway = await startTestGateway({ env: { redisUrl: `redis://127.0.0.1:${port}` } });
  });
  afterAll(async () => {
    await gateway?.stop();
    redis?.kill('SIGKILL');
  });

  it('fails fast to per-instance limits while Redis is down, and shares them again when it returns', async () => {
    const { key, secret } = await gateway.deps.keys.create({ name: 'limited', rpm: 4, budgetUsd: 100 });
    const as = { authorization: `Bearer ${secret}` };
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat, as)).status).toBe(200);

    redis.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Before the fix each limited request waited 6-12 s on the dead connection; now each answers
    // from this instance's own counters (the bound is generous; the point is "not stalled").
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const answer = await call(gateway, 'POST', '/v1/chat/completions', chat, as);
      expect(Date.now() - started).toBeLessThan(2_000);
      statuses.push(answer.status);
    }
    // The window's count at Redis's last answer stands (issue 23): 3 more fit the rpm of 4, then 429.
    expect(statuses).toEqual([200, 200, 200, 429, 429]);

    redis = await startRedis(port);
    const probe = new Redis({ port, maxRetriesPerRequest: 1 });
    try {
      await expect.poll(() => gateway.deps.redis!.status, { timeout: 10_000 }).toBe('ready');
      const { secret: fresh } = await gateway.deps.keys.create({ name: 'after', rpm: 100 });
      expect((await call(gateway, 'POST', '/v1/chat/completions', chat, { authorization: `Bearer ${fresh}` })).status).toBe(200);
      // Counted in Redis again; the restarted Redis got back the window this instance counted.
      expect((await probe.keys('gw:rl:requests*')).length).toBeGreaterThan(0);
      await expect.poll(() => probe.get(`gw:rl:requests:${key.id}:delta-4.1`), { timeout: 5_000 }).toBe('4');
      expect((await call(gateway, 'POST', '/v1/chat/completions', chat, as)).status).toBe(429);
    } finally {
      probe.disconnect();
    }
  });
});
