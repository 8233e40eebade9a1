import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { call, startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { admin, bearer, createKey } from '../helpers/admin.js';
import { RECORDED_REFUSALS_PER_MINUTE } from '../../src/usage/refusal-sampler.js';

/**
 * Issue 34, "refusals cost nothing durable": one `rpm: 2` key sending requests with ever new junk
 * model names wrote 13,742 rollup rows in 8 s (rows retention never deletes). Refusals are counted
 * in metrics; a few per key and minute reach the ledger and the request log, under no model name
 * the gateway does not know.
 */
const FLOOD = 500;

function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe('a flood of junk model names (issue 34)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  const rollupRows = async () => Number((await sql<{ n: number }>`select count(*) as n from usage_rollups`.execute(gateway.deps.db)).rows[0]!.n);
  const scrape = async () => (await call(gateway, 'GET', '/metrics', undefined, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` })).text;
  const REFUSED_SERIES = 'gateway_requests_total{family="chat-completions",route="/v1/chat/completions",model="",channel="",status="400"}';

  it('adds a bounded number of rollup rows and events, and metrics count every refusal', async () => {
    const flooder = await createKey(gateway, { rpm: 2 });
    // One ordinary answer first: its rows exist before the flood is measured.
    expect((await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }, bearer(flooder.key))).status).toBe(200);
    await gateway.deps.usage.flush();
    const rowsBefore = await rollupRows();
    const refusedBefore = sample(await scrape(), REFUSED_SERIES);

    for (let i = 0; i < FLOOD; i += 2) {
      const answers = await Promise.all([i, i + 1].map((n) => call(gateway, 'POST', '/v1/chat/completions', { model: `junk-${n}-${'z'.repeat(n % 50)}`, messages: [{ role: 'user', content: 'hi' }] }, bearer(flooder.key))));
      for (const answer of answers) expect(answer.status).toBe(400);
    }
    await gateway.deps.usage.flush();
    await gateway.deps.requestLog.flush();

    // Every refusal is counted in metrics, under no model label.
    expect(sample(await scrape(), REFUSED_SERIES) - refusedBefore).toBe(FLOOD);
    // A handful of rollup rows at most (the refusals' own '' model row per grain and period), not one set per junk name.
    expect((await rollupRows()) - rowsBefore).toBeLessThanOrEqual(10);
    const events = await gateway.deps.db.selectFrom('usage_events').select(['model', 'status']).where('key_id', '=', flooder.id).where('status', '=', 400).execute();
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThanOrEqual(RECORDED_REFUSALS_PER_MINUTE);
    expect(events.every((event) => event.model === '')).toBe(true);
    // The request log shows the sampled ones with the message the client read (which names the model).
    const logged = await admin(gateway, 'GET', `/requests?key=${flooder.id}&status=4xx&limit=100`);
    expect(logged.status).toBe(200);
    expect(logged.json.data.length).toBe(events.length);
    expect(logged.json.data[0].error_message).toMatch(/\[model asked: junk-\d+-z*\]$/);
  });
});
