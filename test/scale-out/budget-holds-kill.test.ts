import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileConfig } from '../../src/config/schema.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/instance-process.js';
import { createKey, bearer } from '../helpers/admin.js';
import { createTestDatabase, eventually, type TestDatabase } from '../helpers/services.js';
import { freePort, killRedis, startRedis } from '../helpers/redis-server.js';

/**
 * Issue 23 item 8: budget holds belong to the instance that took them. Three streams in flight on
 * an instance killed with SIGKILL used to leave their holds in Redis, and each new hold renewed
 * them, so a busy key stayed refused with nothing spent. Now they lapse with the instance's lease.
 */
const LEASE_MS = 2_000;
// 10,000 USD per million completion tokens: a stream asking for 100 tokens holds 1 USD.
const FILE: FileConfig = { prices: { 'delta-4.1': { completion_per_1m: 10_000 } }, simulator: { first_token_delay_ms: 60_000 } };

describe('budget holds of a killed instance (issue 23)', { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let redisPort: number;
  let redis: ChildProcess;
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-holds-kill-'));
  const instances: GatewayProcess[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    redisPort = await freePort();
    redis = await startRedis(redisPort);
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.kill()));
    await killRedis(redis);
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('three streams in flight at a kill -9 stop holding the budget within the lease, though the key stays busy', async () => {
    const start = (name: string) =>
      startGatewayProcess({ name, dataDir, databaseUrl: database.url, redisUrl: `redis://127.0.0.1:${redisPort}`, file: FILE, env: { GATEWAY_INSTANCE_LEASE_MS: String(LEASE_MS) } });
    const doomed = await start('doomed');
    const survivor = await start('survivor');
    instances.push(doomed, survivor);
    const { key } = await createKey(survivor, { budget_usd: 3.1 });

    // Three streams that will not answer before the kill: 3 USD held on the doomed instance.
    const streams = Array.from({ length: 3 }, () =>
      fetch(`${doomed.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'a long story' }], max_tokens: 100, stream: true }),
      }).catch(() => undefined),
    );
    // A short answer holds 0.15 USD: with 3 USD held it does not fit the 3.1 USD budget.
    const probe = () =>
      fetch(`${survivor.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'short' }], max_tokens: 15 }),
      }).then(async (response) => ({ status: response.status, json: (await response.json()) as any }));
    const refused = await eventually(async () => {
      const answer = await probe();
      return answer.status === 429 ? answer : undefined;
    });
    expect(refused.json.error.code).toBe('insufficient_quota');

    await doomed.kill();
    await Promise.all(streams);
    const killedAt = Date.now();
    // The key stays busy (a refused hold every 100 ms); the dead instance's holds lapse anyway.
    const admitted = await eventually(async () => {
      const answer = await probe();
      return answer.status === 200 ? answer : undefined;
    }, 4 * LEASE_MS + 5_000, 100);
    expect(admitted.json.usage.completion_tokens).toBeGreaterThan(0);
    expect(Date.now() - killedAt).toBeLessThan(4 * LEASE_MS + 5_000);
  });
});
