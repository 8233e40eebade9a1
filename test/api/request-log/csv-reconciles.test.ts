import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../../helpers/admin.js';
import { startCannedUpstream, type CannedUpstream } from '../../helpers/canned-upstream.js';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const PRICES = { prompt_per_1m: 2, cached_prompt_per_1m: 0.5, completion_per_1m: 8, reasoning_per_1m: 10 };

type CsvRow = Record<string, string>;
const parseCsv = (text: string): CsvRow[] => {
  const [head, ...lines] = text.trimEnd().split('\r\n');
  const names = head!.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [names[i]!, value])));
};

/** A row's cost from its own token columns and the price sheet (no cache writes or image tokens are priced apart here). */
const recomputed = (row: CsvRow): number => {
  const n = (name: string) => Number(row[name]);
  const uncachedInput = n('prompt_tokens') - n('cached_input_tokens') - n('cache_write_5m_tokens') - n('cache_write_1h_tokens') - n('image_input_tokens');
  const input = (uncachedInput + n('cache_write_5m_tokens') + n('cache_write_1h_tokens') + n('image_input_tokens')) * PRICES.prompt_per_1m + n('cached_input_tokens') * PRICES.cached_prompt_per_1m;
  const output = (n('completion_tokens') - n('reasoning_tokens')) * PRICES.completion_per_1m + n('reasoning_tokens') * PRICES.reasoning_per_1m;
  return (input + output) / 1e6;
};

/**
 * Issue 35: an invoice must reconcile outside the drawer. The request CSV carries every billed
 * part of the tokens (cached input, cache writes, reasoning), so each row's cost is recomputed
 * from its own columns and the price sheet, to the nano-dollar.
 */
describe('the request CSV reconciles with the price sheet', () => {
  let upstream: CannedUpstream;
  let gateway: TestGateway;
  beforeAll(async () => {
    let turn = 0;
    upstream = await startCannedUpstream(() => {
      turn++;
      return {
        json: {
          id: `chatcmpl-${turn}`,
          object: 'chat.completion',
          created: 1,
          model: 'gpt-4.1',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1000 * turn, completion_tokens: 200 + turn, total_tokens: 1200 + 1001 * turn, prompt_tokens_details: { cached_tokens: 400 * turn }, completion_tokens_details: { reasoning_tokens: 50 } },
        },
      };
    });
    gateway = await startTestGateway({
      file: { prices: { 'delta-4.1': PRICES }, channels: [{ name: 'canned', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: 'k-canned', models: { 'delta-4.1': 'gpt-4.1' } }] },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await upstream.close();
  });

  it('each row: cost = uncached input + cached input + output at their prices', async () => {
    for (let i = 0; i < 3; i++) expect((await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: `q${i}` }] })).status).toBe(200);
    await gateway.deps.usage.flush();
    const csv = await admin(gateway, 'GET', '/requests.csv?model=delta-4.1');
    const rows = parseCsv(csv.text);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(Number(row.cached_input_tokens)).toBeGreaterThan(0);
      expect(Number(row.reasoning_tokens)).toBe(50);
      expect(Math.abs(recomputed(row) - Number(row.cost_usd))).toBeLessThan(1e-9);
    }
  });

  it('the usage report CSV has the same token parts: each group recomputes too, and the parts add up to the request CSV', async () => {
    const requests = parseCsv((await admin(gateway, 'GET', '/requests.csv?model=delta-4.1')).text);
    const sum = (name: string) => requests.reduce((total, row) => total + Number(row[name]), 0);
    // By model (the rollups) and by hour (the rollups, or the events for the current hour).
    for (const query of ['group_by=model', 'group_by=hour&model=delta-4.1', `model=delta-4.1&from=${new Date(Date.now() - 600_000).toISOString()}`]) {
      const csv = await admin(gateway, 'GET', `/usage.csv?${query}`);
      expect(csv.status, query).toBe(200);
      const rows = parseCsv(csv.text).filter((row) => row.group !== 'all' || !query.startsWith('group_by'));
      const delta = query === 'group_by=model' ? rows.filter((row) => row.group === 'delta-4.1') : rows;
      expect(delta.length, query).toBeGreaterThan(0);
      for (const row of delta) {
        expect(Number(row.cached_input_tokens), query).toBeGreaterThan(0);
        expect(Math.abs(recomputed(row) - Number(row.cost_usd)), query).toBeLessThan(1e-9);
      }
      for (const column of ['prompt_tokens', 'cached_input_tokens', 'cache_write_5m_tokens', 'cache_write_1h_tokens', 'reasoning_tokens', 'completion_tokens']) {
        expect(delta.reduce((total, row) => total + Number(row[column]), 0), `${query} ${column}`).toBe(sum(column));
      }
    }
  });
});
