import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer } from '../helpers/admin.js';
import { findChromium, launchOptions } from '../helpers/chromium.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-vendor.js';
import { call, startTestGateway, TEST_ADMIN_TOKEN, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

/**
 * Issue 35's channel rows in a real browser: "Test" picks one of the channel's models and shows
 * the vendor's status and redacted text, kept on the server so a reload still shows it; a channel
 * the gateway disabled after repeated 401s says why on its row until it is enabled again; the
 * health figures say they are this instance's last 5 minutes; a long last error stays on one
 * line (its whole text in the tooltip) and wraps by word in a phone's cards.
 */
const CHROMIUM = await findChromium();
const STEP_MS = 20_000;
const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
const SECRET = 'sk-upstream-console-7777';
const VENDOR_TEXT = 'Incorrect API key provided. You can find your API key in your account settings and check that the organisation has access to this model.';

describe.skipIf('missing' in CHROMIUM)('channel tests and auto-disable in the console (issue 35)', { timeout: 120_000 }, () => {
  let vendor: FakeVendor;
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  const go = (path: string) => page.goto(`${gateway.url}/console${path}`);
  const row = (id: string) => page.getByRole('row').filter({ has: page.getByRole('button', { name: `Test ${id}`, exact: true }) });

  beforeAll(async () => {
    if ('missing' in CHROMIUM) throw new Error(CHROMIUM.missing);
    // A real HTTP vendor refusing our credential as OpenAI does, quoting it back (the redactor takes it out).
    vendor = await startFakeVendor(({ headers }) => ({
      status: 401,
      json: { error: { message: `${VENDOR_TEXT} Key: ${String(headers.authorization).replace('Bearer ', '')}`, type: 'invalid_request_error', code: 'invalid_api_key' } },
    }));
    gateway = await startTestGateway({
      file: {
        channels: [
          { name: 'locked', vendor: 'openai', base_url: `${vendor.url}/v1`, api_key: SECRET, max_retries: 0, priority: 0, models: { 'delta-4.1': 'gpt-4.1', 'epsilon-4.7': 'gpt-5' }, auto_disable_after_auth_failures: 3 },
          { name: 'spare', vendor: 'openai', priority: 1, models: { 'delta-4.1': 'gpt-4.1' } },
        ],
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

  it('"Test" picks one of the channel\'s models and shows the vendor\'s status and text; the result survives a reload', async () => {
    await go('/channels');
    await row('locked').getByRole('button', { name: 'Test locked' }).click();
    const dialog = page.getByRole('dialog', { name: 'Test locked' });
    const picker = dialog.getByLabel('Model');
    expect(await picker.locator('option').evaluateAll((options) => options.map((o) => o.getAttribute('value')))).toEqual(['delta-4.1', 'epsilon-4.7']);
    await picker.selectOption('epsilon-4.7');
    await dialog.getByRole('button', { name: 'Run test' }).click();
    const result = dialog.getByRole('status', { name: 'Test result' });
    await expect.poll(() => result.textContent(), { timeout: STEP_MS }).toContain('Incorrect API key provided');
    const shown = (await result.textContent())!;
    expect(shown).toContain('epsilon-4.7');
    expect(shown).toMatch(/Vendor status\s*401/);
    expect(shown).not.toContain(SECRET);
    expect(vendor.calls.at(-1)!.body.model).toBe('gpt-5');
    await dialog.getByRole('button', { name: 'Close' }).click();

    await page.reload();
    const kept = page.getByRole('status', { name: 'Test result of locked' });
    await expect.poll(() => kept.textContent(), { timeout: STEP_MS }).toContain('vendor 401');
    expect(await kept.textContent()).toContain('Incorrect API key provided');
    // Opened again, the dialog shows the kept result for the model it was run with.
    await row('locked').getByRole('button', { name: 'Test locked' }).click();
    expect(await dialog.getByLabel('Model').inputValue()).toBe('epsilon-4.7');
    expect(await dialog.getByRole('status', { name: 'Test result' }).textContent()).toContain('Incorrect API key provided');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('says the health figures are this instance\'s last 5 minutes, wraps a long last error by word, cut after three lines, its text in the tooltip', async () => {
    await go('/channels');
    await page.getByText('this instance’s last 5 minutes').waitFor();
    const lastError = row('locked').locator('td[data-label="Last error"] .clamped');
    await expect.poll(() => lastError.getAttribute('title'), { timeout: STEP_MS }).toContain(VENDOR_TEXT);
    const box = (await lastError.boundingBox())!;
    const lineHeight = await lastError.evaluate((el) => {
      const style = (globalThis as any).getComputedStyle(el);
      return parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5;
    });
    // At most three lines, cut with an ellipsis, and wide enough for whole words: not a column of single letters.
    expect(box.height).toBeLessThan(lineHeight * 3.5);
    expect(box.width).toBeGreaterThan(80);
    expect(await lastError.evaluate((el) => (globalThis as any).getComputedStyle(el).overflowWrap)).toBe('break-word');
    expect(await lastError.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);

    // In a phone's cards the text wraps by word: whole words per line, nothing off-screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => lastError.evaluate((el) => (globalThis as any).getComputedStyle(el).maxWidth), { timeout: STEP_MS }).toBe('100%');
    expect((await lastError.boundingBox())!.width).toBeGreaterThan(150);
    expect(Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'))).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('a channel the gateway disabled after repeated 401s shows why (vendor text, time) and no circuit; enabling it clears the reason', async () => {
    // The test above was the first refusal in a row; two requests make three.
    for (let i = 0; i < 2; i++) expect((await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }, bearer(TEST_KEY))).status).toBe(200);
    await expect.poll(async () => (await admin(gateway, 'GET', '/channels/locked')).json.enabled, { timeout: STEP_MS }).toBe(false);

    await go('/channels');
    const state = row('locked').locator('td[data-label="State"]');
    await expect.poll(() => state.textContent(), { timeout: STEP_MS }).toContain('Auto-disabled');
    const text = (await state.textContent())!;
    expect(text).toContain('after 3 authentication failures in a row (401)');
    expect(text).toContain('Incorrect API key provided');
    expect(text).not.toContain(SECRET);
    expect(await state.locator('.clamped').getAttribute('title')).toContain(VENDOR_TEXT);
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'channels-auto-disabled.png'), fullPage: true });
    // The reason and a long last error widen no column: the row's actions stay on screen, nothing scrolls sideways.
    expect(Number(await page.evaluate("[...document.querySelectorAll('.data-table .table-wrap')].filter((wrap) => wrap.scrollWidth > wrap.clientWidth + 1).length"))).toBe(0);
    const enable = (await row('locked').getByRole('button', { name: 'Enable locked' }).boundingBox())!;
    expect(enable.x + enable.width).toBeLessThanOrEqual(1280);
    // Disabled: no circuit state, never "half open".
    expect((await row('locked').locator('td[data-label="Circuit"]').textContent())!.trim()).toBe('—');

    await row('locked').getByRole('button', { name: 'Enable locked' }).click();
    await row('locked').getByRole('button', { name: 'Disable locked' }).waitFor();
    await expect.poll(() => state.textContent(), { timeout: STEP_MS }).not.toContain('Auto-disabled');
    expect((await admin(gateway, 'GET', '/channels/locked')).json).toMatchObject({ enabled: true, auto_disabled: null });
  });

  it('sets and clears a channel\'s auto-disable threshold in its form', async () => {
    await go('/channels');
    await row('spare').getByRole('button', { name: 'Edit spare' }).click();
    const form = page.getByRole('dialog', { name: 'Edit channel spare' });
    await form.getByLabel(/^Auto-disable after auth failures/).fill('4');
    await form.getByRole('button', { name: 'Save channel' }).click();
    await form.waitFor({ state: 'detached' });
    expect((await admin(gateway, 'GET', '/channels/spare')).json.auto_disable_after_auth_failures).toBe(4);

    await row('spare').getByRole('button', { name: 'Edit spare' }).click();
    expect(await form.getByLabel(/^Auto-disable after auth failures/).inputValue()).toBe('4');
    await form.getByLabel(/^Auto-disable after auth failures/).fill('');
    await form.getByRole('button', { name: 'Save channel' }).click();
    await form.waitFor({ state: 'detached' });
    expect((await admin(gateway, 'GET', '/channels/spare')).json.auto_disable_after_auth_failures).toBeNull();
  });
});
