import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer } from '../../helpers/admin.js';

/**
 * Issue 22: on SQLite a 30-day report used to run on the event loop, and a chat request made
 * meanwhile waited for it (499 ms). Console and report reads now run in worker threads with
 * read-only connections: whatever they are busy with, requests are served.
 */
describe.skipIf(process.env.GATEWAY_TEST_DATABASE === 'postgres')('SQLite console reads run off the event loop (issue 22)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('a chat request is answered while a usage report is still running in the read workers', async () => {
    const { readDb, db } = gateway.deps;
    expect(readDb).not.toBe(db);
    const chatBody = { model: 'delta-4.1', messages: [{ role: 'user', content: 'hello' }], max_tokens: 5 };
    // A first request pays for the cold paths (module loading, JIT); the race below is about the event loop.
    expect((await call(gateway, 'POST', '/v1/chat/completions', chatBody, bearer(TEST_KEY))).status).toBe(200);
    // Reads long enough to outlast any request (millions of rows, as a report over a big
    // store would be), one per read worker, so the report below queues behind them.
    const long = () => sql<{ n: number }>`with recursive n(i) as (select 1 union all select i + 1 from n where i < 10000000) select count(*) as n from n`.execute(readDb);
    const busy = [long(), long()];
    let reportAnswered = false;
    const report = admin(gateway, 'GET', '/usage?group_by=day').then((answer) => {
      reportAnswered = true;
      return answer;
    });

    const chat = await call(gateway, 'POST', '/v1/chat/completions', chatBody, bearer(TEST_KEY));
    expect(chat.status).toBe(200);
    expect(reportAnswered).toBe(false);

    expect((await report).status).toBe(200);
    expect((await Promise.all(busy)).map((result) => result.rows[0]!.n)).toEqual([10_000_000, 10_000_000]);
    // Counting takes seconds on a quiet machine, a minute on a busy one (three test workers beside it).
  }, 90_000);

  it('the read connections refuse writes', async () => {
    await expect(sql`delete from usage_events`.execute(gateway.deps.readDb)).rejects.toThrow(/read/);
    await expect(gateway.deps.readDb.transaction().execute(async () => undefined)).rejects.toThrow(/transactions/);
  });
});
