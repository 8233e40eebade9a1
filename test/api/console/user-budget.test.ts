import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { bearer } from '../../helpers/admin.js';
import { consoleCall, inviteUser } from '../../helpers/console.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/services.js';

/**
 * Issue 23 items 2 and 3: a user's budget bounds what all their keys can spend. A live key counts
 * as the larger of its budget and what it has already spent (lowering a spent key's budget frees
 * nothing), and on PostgreSQL the check and the insert run in one transaction with the user's row
 * locked, so parallel creations cannot all pass one check.
 */
// 0.25 USD per request: 1,000 USD per million completion tokens, 250 tokens asked for, and the
// simulator's answer to a long prompt fills them.
const FILE = { prices: { 'delta-4.1': { completion_per_1m: 1_000 } } };
const spend = (gateway: TestGateway, secret: string) =>
  call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'tell me everything '.repeat(100) }], max_tokens: 250 }, bearer(secret));

describe('a user budget counts what keys spent (issue 23 item 2)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: FILE });
  });
  afterAll(() => gateway.stop());

  it("spending key A's budget, lowering it to 0 and making key B does not let the user spend past their budget", async () => {
    const { session } = await inviteUser(gateway, { budget_usd: 1 });
    const a = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'a', budget_usd: 1 }, { session });
    expect(a.status, a.text).toBe(201);
    let answered = 0;
    while ((await spend(gateway, a.json.key)).status === 200) answered += 1;
    expect(answered).toBeGreaterThan(0);
    const spent = (await consoleCall(gateway, 'GET', `/console/api/keys/${a.json.id}`, undefined, { session })).json.spent_month_usd as number;
    expect(spent).toBeGreaterThan(0.5);
    expect(spent).toBeLessThanOrEqual(1);

    // Lowering a key's budget is allowed; it frees only what the key has not spent.
    expect((await consoleCall(gateway, 'PATCH', `/console/api/keys/${a.json.id}`, { budget_usd: 0 }, { session })).status).toBe(200);
    const b = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'b', budget_usd: 1 }, { session });
    expect(b.status, b.text).toBe(403);
    expect(b.json.error.code).toBe('allowance_exceeded');
    // What is left of the user's budget can still be given.
    const left = Math.floor((1 - spent) * 1e6) / 1e6;
    const fits = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'b', budget_usd: left }, { session });
    expect(fits.status, fits.text).toBe(201);
    // Raising A again is measured the same way: B's budget and A's own spend leave no room.
    expect((await consoleCall(gateway, 'PATCH', `/console/api/keys/${a.json.id}`, { budget_usd: 1 }, { session })).status).toBe(403);
  });

  it('20 parallel creations on SQLite make exactly one key with the whole user budget', async () => {
    const { session } = await inviteUser(gateway, { budget_usd: 1 });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => consoleCall(gateway, 'POST', '/console/api/keys', { name: `k${i}`, budget_usd: 1 }, { session })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 403)).toHaveLength(19);
  });
});

describe('parallel key creation on PostgreSQL (issue 23 item 3)', () => {
  let database: TestDatabase;
  let gateway: TestGateway;
  beforeAll(async () => {
    database = await createTestDatabase();
    gateway = await startTestGateway({ env: { databaseUrl: database.url }, file: FILE });
  });
  afterAll(async () => {
    await gateway?.stop();
    await database?.drop();
  });

  it('20 parallel creations of a key with the whole user budget make exactly one', async () => {
    const { session } = await inviteUser(gateway, { budget_usd: 1 });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => consoleCall(gateway, 'POST', '/console/api/keys', { name: `k${i}`, budget_usd: 1 }, { session })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 403)).toHaveLength(19);
    const keys = await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session });
    expect(keys.json.data).toHaveLength(1);
  });

  it('20 parallel changes of two keys cannot together give out more than the user budget', async () => {
    const { session } = await inviteUser(gateway, { budget_usd: 1 });
    const made = await Promise.all(['x', 'y'].map((name) => consoleCall(gateway, 'POST', '/console/api/keys', { name, budget_usd: 0 }, { session })));
    const ids = made.map((m) => m.json.id as string);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => consoleCall(gateway, 'PATCH', `/console/api/keys/${ids[i % 2]}`, { budget_usd: 0.8 }, { session })));
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    const keys = await consoleCall(gateway, 'GET', '/console/api/keys', undefined, { session });
    const total = keys.json.data.reduce((sum: number, key: { budget_usd: number }) => sum + key.budget_usd, 0);
    expect(total).toBeLessThanOrEqual(1);
  });
});
