import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../helpers/admin.js';
import { startCannedUpstream, type CannedUpstream } from '../helpers/canned-upstream.js';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';

async function costOf(gateway: TestGateway, model: string): Promise<number> {
  await gateway.deps.usage.flush();
  const row = await gateway.deps.db.selectFrom('usage_events').select((eb) => eb.fn.sum<number>('cost_usd').as('usd')).where('model', '=', model).executeTakeFirst();
  return Number(row?.usd ?? 0);
}

/**
 * Issue 35: catalog models the built-in simulator serves were billed at the vendor's list price,
 * so a trial key looked spent on replies nobody paid for. Simulated answers are free unless the
 * operator prices the model; the admin view says which models are simulated. A vendor channel for
 * the same sheet model still pays the sheet's price.
 */
describe('simulated answers are free unless priced', () => {
  let upstream: CannedUpstream;
  let gateway: TestGateway;
  beforeAll(async () => {
    upstream = await startCannedUpstream(() => ({
      json: { id: 'c1', object: 'chat.completion', created: 1, model: 'gpt-4.1', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 } },
    }));
    gateway = await startTestGateway({
      file: {
        prices: { 'beta-seed-2.0-pro': { prompt_per_1m: 3, completion_per_1m: 9 } },
        channels: [{ name: 'real-openai', vendor: 'openai', base_url: `${upstream.url}/v1`, api_key: 'k-real', models: { 'delta-4.1': 'gpt-4.1' } }],
      },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await upstream.close();
  });

  const chat = (model: string) => call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hello there' }], max_tokens: 8 });

  it('a simulator-served sheet model costs nothing; one the operator priced costs its price; a vendor channel pays the sheet', async () => {
    const simulated = await chat('epsilon-4.7');
    expect(simulated.status, simulated.text).toBe(200);
    expect(simulated.headers.get('x-simulator')).not.toBeNull();
    expect(await costOf(gateway, 'epsilon-4.7')).toBe(0);

    expect((await chat('beta-seed-2.0-pro')).status).toBe(200);
    expect(await costOf(gateway, 'beta-seed-2.0-pro')).toBeGreaterThan(0);

    expect((await chat('delta-4.1')).status).toBe(200);
    // gpt-4.1 on the sheet: 2 USD in, 8 USD out per million tokens.
    expect(await costOf(gateway, 'delta-4.1')).toBeCloseTo((100 * 2 + 10 * 8) / 1e6, 12);
  });

  it('the admin API marks models only the simulator serves', async () => {
    // It has a sheet price (what a vendor channel for it would pay), which the simulator does not charge.
    expect((await admin(gateway, 'GET', '/models/epsilon-4.7')).json).toMatchObject({ simulated: true, price_source: 'builtin' });
    expect((await admin(gateway, 'GET', '/models/delta-4.1')).json).toMatchObject({ simulated: false });
  });
});
