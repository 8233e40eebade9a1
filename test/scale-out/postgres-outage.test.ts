import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { createTestDatabase, TEST_POSTGRES_URL, type TestDatabase } from '../helpers/services.js';

/**
 * Issue 13 item 9: PostgreSQL going away. The gateway reaches the database through a TCP proxy
 * of the test's own, which can cut every connection and refuse new ones (the shared server keeps
 * running for the other test files).
 */
class Outage {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async up(): Promise<void> {
    const target = new URL(TEST_POSTGRES_URL);
    this.server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async down(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

const chat = { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] };

describe('PostgreSQL outage', () => {
  let database: TestDatabase;
  let gateway: TestGateway;
  const proxy = new Outage();
  beforeAll(async () => {
    database = await createTestDatabase();
    await proxy.up();
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    gateway = await startTestGateway({ env: { databaseUrl: url.toString() } });
  });
  afterAll(async () => {
    await gateway?.stop({ keepData: true });
    await proxy.down().catch(() => undefined);
    await database?.drop();
  });

  it('keys seen recently keep working, others get 503 with Retry-After, /readyz says not ready, and it all recovers', async () => {
    const seen = await gateway.deps.keys.create({ name: 'seen' });
    const unseen = await gateway.deps.keys.create({ name: 'unseen' });
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat, { authorization: `Bearer ${seen.secret}` })).status).toBe(200);

    await proxy.down();
    // Past the key cache's 1-second freshness: the lookup fails, the recent answer stands in.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const during = await call(gateway, 'POST', '/v1/chat/completions', chat, { authorization: `Bearer ${seen.secret}` });
    expect(during.status).toBe(200);
    const refused = await call(gateway, 'POST', '/v1/chat/completions', chat, { authorization: `Bearer ${unseen.secret}` });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.json.error.message).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/i);
    const ready = await call(gateway, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    await gateway.deps.usage.flush(); // fails and keeps the events queued

    await proxy.up();
    await expect.poll(async () => (await call(gateway, 'GET', '/readyz')).status, { timeout: 15_000 }).toBe(200);
    expect((await call(gateway, 'POST', '/v1/chat/completions', chat, { authorization: `Bearer ${unseen.secret}` })).status).toBe(200);
    // The request answered during the outage reached the ledger once the database was back.
    await gateway.deps.usage.flush();
    const events = await database.db.selectFrom('usage_events').select('status').where('key_id', '=', seen.key.id).execute();
    expect(events.map((e) => e.status)).toEqual([200, 200]);
  });
});
