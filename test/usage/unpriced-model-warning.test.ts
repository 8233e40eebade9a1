import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { admin } from '../helpers/admin.js';
import { openaiSimulator } from '../../src/providers/openai/simulator.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';

/**
 * Issue 33: a public model mapped to an upstream name the price sheet lacks (a typo, a model newer
 * than the sheet) billed $0 in silence. The start now warns once per channel and model, naming
 * both; priced mappings and simulator channels stay quiet, and the Models page shows no price.
 */
describe('an unpriced upstream model warns at start (issue 33)', () => {
  let upstream: RunningSimulator;
  let gateway: TestGateway;
  let warned = '';
  beforeAll(async () => {
    upstream = await startSimulator(openaiSimulator);
    // Written before the app's logger exists: to stderr.
    const stderr = vi.spyOn(process.stderr, 'write');
    try {
      gateway = await startTestGateway({
        file: {
          channels: [
            { name: 'house-openai', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-up', models: { 'delta-4.1': 'gpt-4.1-typo', 'beta-seed-2.0-pro': 'gpt-5' } },
            { name: 'priced-here', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: 'sk-up', models: { 'beta-seed-2.0-code': 'my-finetune' }, prices: { 'beta-seed-2.0-code': { prompt_per_1m: 1, completion_per_1m: 2 } } },
          ],
        },
      });
    } finally {
      warned = stderr.mock.calls.map(([chunk]) => String(chunk)).join('');
      stderr.mockRestore();
    }
  });
  afterAll(async () => {
    await gateway?.stop();
    await upstream.close();
  });

  it('names the channel, the public model and its upstream name; nothing for priced ones', async () => {
    expect(warned).toContain("channel 'house-openai': model 'delta-4.1' (upstream 'gpt-4.1-typo') has no price");
    expect(warned).toContain('billed $0');
    expect(warned.match(/has no price/g)).toHaveLength(1);
    expect(warned).not.toContain('beta-seed-2.0-pro');
    expect(warned).not.toContain('priced-here');
    expect(warned).not.toContain('simulator-');

    const models = await admin(gateway, 'GET', '/models');
    const row = models.json.data.find((model: { id: string }) => model.id === 'delta-4.1');
    expect(row).toMatchObject({ price: null, price_source: null });
  });
});
