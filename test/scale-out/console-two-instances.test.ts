import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { bearer } from '../helpers/admin.js';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../helpers/services.js';
import { consoleCall, inviteUser } from '../helpers/console.js';

const models = (gateway: { url: string }, secret: string) => call(gateway, 'GET', '/v1/models', undefined, bearer(secret));

/** Sign-in counters live 15 minutes in the shared Redis: each run signs in from addresses of its own. */
const randomLoopback = () => `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

/** Two instances on one PostgreSQL database and one Redis (issue 12). */
describe('the console across two instances', () => {
  let database: TestDatabase;
  let dataDir: string;
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-console-shared-'));
    const env = { databaseUrl: database.url, redisUrl: TEST_REDIS_URL };
    [a, b] = await Promise.all([startTestGateway({ dataDir, env }), startTestGateway({ dataDir, env })]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop({ keepData: true }), b?.stop({ keepData: true })]);
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('a session made on one instance works on the other; signing out on one ends it on both', async () => {
    const person = await inviteUser(a);
    expect((await consoleCall(b, 'GET', '/console/api/session', undefined, { session: person.session })).status).toBe(200);
    expect((await consoleCall(b, 'DELETE', '/console/api/session', undefined, { session: person.session })).status).toBe(204);
    expect((await consoleCall(a, 'GET', '/console/api/session', undefined, { session: person.session })).status).toBe(401);
  });

  it('a secret regenerated on one instance is refused by the other at once (key-cache bus), not when its cache runs out', async () => {
    const { session } = await inviteUser(a);
    const key = (await consoleCall(a, 'POST', '/console/api/keys', { name: 'rotating' }, { session })).json;
    // B has just looked the old secret up: its cache holds it as valid for the next second.
    expect((await models(b, key.key)).status).toBe(200);
    const rotated = await consoleCall(a, 'POST', `/console/api/keys/${key.id}/regenerate`, undefined, { session });
    expect(rotated.status).toBe(200);
    const since = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - since < 3_000) {
      status = (await models(b, key.key)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe(401);
    // Well under the cache's one-second lifetime: only the invalidation message explains it.
    expect(Date.now() - since).toBeLessThan(300);
    expect((await models(b, rotated.json.key)).status).toBe(200);
  });

  it('failed sign-ins are counted across instances (Redis): five from one address split over A and B, the sixth is 429; a fresh address signs in', async () => {
    const person = await inviteUser(a);
    const from = randomLoopback();
    for (let i = 0; i < 5; i++) {
      const instance = i % 2 === 0 ? a : b;
      expect((await consoleCall(instance, 'POST', '/console/api/session', { email: person.email, password: `wrong-${i}` }, { from })).status).toBe(401);
    }
    const limited = await consoleCall(b, 'POST', '/console/api/session', { email: person.email, password: person.password }, { from });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Issue 23: the right password from an address that has not failed is never locked out.
    expect((await consoleCall(a, 'POST', '/console/api/session', { email: person.email, password: person.password }, { from: randomLoopback() })).status).toBe(200);
  });
});
