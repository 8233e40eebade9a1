import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer, createKey } from '../helpers/admin.js';
import { findChromium, launchOptions } from '../helpers/chromium.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-vendor.js';
import { call, startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';

/**
 * Issue 35's key statuses in a real browser: a key whose per-minute window is used up reads
 * "rate-limited now" (which window, on which model, in its tooltip), not "active"; a key the
 * vendor billed beyond its budget (more tokens than the gateway could estimate) says by how much.
 */
const CHROMIUM = await findChromium();
const STEP_MS = 20_000;

describe.skipIf('missing' in CHROMIUM)("a key's status right now in the console (issue 35)", { timeout: 120_000 }, () => {
  let vendor: FakeVendor;
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  const go = (path: string) => page.goto(`${gateway.url}/console${path}`);
  const rowOf = (name: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
  const chat = (secret: string) => call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, bearer(secret));

  beforeAll(async () => {
    if ('missing' in CHROMIUM) throw new Error(CHROMIUM.missing);
    // A vendor that reports far more completion tokens than max_tokens allowed: the estimate held is exceeded.
    vendor = await startFakeVendor(({ body }) => ({
      json: {
        id: 'chatcmpl-1', object: 'chat.completion', created: 1_700_000_000, model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 10_000, total_tokens: 10_010 },
      },
    }));
    gateway = await startTestGateway({
      file: {
        prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } },
        channels: [{ name: 'generous', vendor: 'openai', base_url: `${vendor.url}/v1`, api_key: 'sk-vendor-1', models: { 'delta-4.1': 'gpt-4.1' } }],
      },
    });
    browser = await chromium.launch(launchOptions(CHROMIUM));
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
    await go('/login');
    await page.getByRole('tab', { name: 'Admin token' }).click();
    await page.getByRole('tabpanel').getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    await vendor?.close();
  });

  it('reads "rate-limited now" with the window in its tooltip once rpm is used up, "active" beside it otherwise', async () => {
    const limited = await createKey(gateway, { name: 'one-a-minute', rpm: 1 });
    await createKey(gateway, { name: 'unlimited' });
    expect((await chat(limited.key)).status).toBe(200);
    await go('/token');
    const badge = rowOf('one-a-minute').locator('td[data-label="Status"] .badge');
    await expect.poll(() => badge.textContent(), { timeout: STEP_MS }).toContain('rate-limited now');
    expect(await badge.getAttribute('title')).toMatch(/^1 request a minute used up on delta-4\.1 until /);
    expect(await rowOf('unlimited').locator('td[data-label="Status"] .badge').textContent()).toContain('active');
  });

  it('says by how much a key overshot its budget when the vendor reported more than was estimated', async () => {
    const small = await createKey(gateway, { name: 'small-budget', budget_usd: 0.05 });
    expect((await chat(small.key)).status).toBe(200);
    // 10 × $2/1M + 10,000 × $8/1M = $0.08002: $0.03002 (60.0 %) over.
    await expect.poll(async () => (await admin(gateway, 'GET', `/keys/${small.id}`)).json.spent_usd, { timeout: STEP_MS }).toBeCloseTo(0.08002, 9);
    await go('/token');
    const spend = rowOf('small-budget').locator('td[data-label="Spent / budget"]');
    await expect.poll(() => spend.textContent(), { timeout: STEP_MS }).toContain('overshot by');
    expect(await spend.textContent()).toMatch(/overshot by \$0\.03002\d* \(60\.0 %\)/);
    expect(await rowOf('small-budget').locator('td[data-label="Status"] .badge').textContent()).toContain('budget spent');
  });
});
