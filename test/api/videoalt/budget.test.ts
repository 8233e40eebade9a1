import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { bearer, createKey } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';

/**
 * Issue 34: Kling models had no price, so a budget never held on /videoalt. The built-in sheet
 * prices them by units per clip; a task is refused when its worst case exceeds what is left.
 */
describe('/videoalt under a budget (issue 34)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    // Priced by the operator: the simulator's answers are otherwise free (issue 35), and a budget has nothing to hold.
    gateway = await startTestGateway({ file: { simulator: { video_task_ms: 200 }, prices: { 'kling-v2-6': { per_video_second: 0.1 } } } });
  });
  afterAll(() => gateway.stop());

  const body = { model_name: 'kling-v2-6', prompt: 'A rabbit reading a newspaper', duration: '5', mode: 'pro' };

  it('a budget smaller than a clip refuses the task in the Kling envelope; a larger one admits it', async () => {
    const poor = await createKey(gateway, { budget_usd: 0.01 });
    const refused = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', body, bearer(poor.key));
    expect(refused.status, refused.text).toBe(429);
    assertEnvelope('kling', refused.json);
    expect(refused.json.message).toContain('budget');

    const funded = await createKey(gateway, { budget_usd: 5 });
    const created = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', body, bearer(funded.key));
    expect(created.status, created.text).toBe(200);
  });
});
