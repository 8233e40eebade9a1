import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../../helpers/admin.js';
import { startCannedUpstream, type CannedUpstream } from '../../helpers/canned-upstream.js';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const PRICES = { prompt_per_1m: 2, cached_prompt_per_1m: 0.5, completion_per_1m: 8 };

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
    const [head, ...lines] = csv.text.trimEnd().split('\r\n');
    const names = head!.split(',');
    const rows = lines.map((line) => Object.fromEntries(line.split(',').map((value, i) => [names[i]!, value])));
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      const n = (name: string) => Number(row[name]);
      expect(n('cached_input_tokens')).toBeGreaterThan(0);
      expect(n('reasoning_tokens')).toBe(50);
      const recomputed = ((n('prompt_tokens') - n('cached_input_tokens') - n('cache_write_5m_tokens') - n('cache_write_1h_tokens')) * PRICES.prompt_per_1m + n('cached_input_tokens') * PRICES.cached_prompt_per_1m + n('completion_tokens') * PRICES.completion_per_1m) / 1e6;
      expect(Math.abs(recomputed - n('cost_usd'))).toBeLessThan(1e-9);
    }
  });
});
