import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from '../helpers/services.js';

/**
 * Issue 13 (low): a NUL character in text the gateway stores (PostgreSQL text cannot hold it)
 * is a 400 in the family's envelope on both stores, never a 500 on PostgreSQL alone.
 */
const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
const NUL = 'a\u0000b';

describe.each([
  { store: 'SQLite', database: async (): Promise<TestDatabase | undefined> => undefined },
  { store: 'PostgreSQL', database: createTestDatabase },
])('NUL characters in stored text on $store', ({ database: makeDatabase }) => {
  let gateway: TestGateway;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await makeDatabase();
    gateway = await startTestGateway({ env: database ? { databaseUrl: database.url } : {} });
  });
  afterAll(async () => {
    await gateway.stop();
    await database?.drop();
  });

  it.each([
    ['admin key name', 'POST', '/admin/api/keys', { name: NUL }, admin],
    ['user name', 'POST', '/admin/api/users', { email: 'n@example.org', name: NUL }, admin],
    ['user e-mail', 'POST', '/admin/api/users', { email: `n${NUL}@example.org`, name: 'n' }, admin],
    ['external_task_id', 'POST', '/videoalt/v1/videos/text2video', { prompt: 'x', external_task_id: NUL }, undefined],
    ['asset name', 'POST', '/cloud/asset/CreateAsset', { model: 'cloud-asset', Name: NUL, AssetType: 'Image', URL: 'https://example.com/a.png' }, undefined],
  ] as const)('%s', async (_field, method, path, body, headers) => {
    const answer = await call(gateway, method, path, body, headers);
    expect(answer.status, answer.text).toBe(400);
  });

  it('a NUL inside chat text is only passed on, never stored raw: 200', async () => {
    const answer = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: NUL }] });
    expect(answer.status).toBe(200);
  });
});
