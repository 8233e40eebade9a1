import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { createTestDatabase, eventually, type TestDatabase } from '../../helpers/services.js';

/** Two gateway instances on one PostgreSQL database share the response cache (issue 32). */
describe('response cache shared by two instances on PostgreSQL (issue 32)', () => {
  let database: TestDatabase;
  let first: TestGateway;
  let second: TestGateway;
  beforeAll(async () => {
    database = await createTestDatabase();
    const file = { cache: { enabled: true } };
    first = await startTestGateway({ file, env: { databaseUrl: database.url } });
    second = await startTestGateway({ file, env: { databaseUrl: database.url } });
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
    await database?.drop();
  });

  it('an answer stored through one instance is a hit on the other, without an upstream call there', async () => {
    const body = { model: 'delta-4.1', messages: [{ role: 'user', content: 'shared between instances' }] };
    const miss = await call(first, 'POST', '/v1/chat/completions', body);
    expect(miss.headers.get('x-cache')).toBe('MISS');
    // The write happens after the answer is sent: wait until the entry is in the shared table.
    await eventually(async () => ((await first.deps.db.selectFrom('response_cache').select('id').execute()).length > 0 ? true : undefined));
    const upstream = second.deps.simulators.get('simulator-openai')!;
    const before = upstream.requests.length;
    const hit = await call(second, 'POST', '/v1/chat/completions', body);
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.text).toBe(miss.text);
    expect(upstream.requests.length).toBe(before);
  });
});

