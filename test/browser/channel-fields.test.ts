import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../helpers/chromium.js';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { admin } from '../helpers/admin.js';

/**
 * The channel dialog is built from GET /admin/api/vendors (issue 28): its vendor select lists the
 * registry's vendors and each vendor's credential inputs are the ones its folder declares; what is
 * typed reaches the channel under the declared field names.
 */
const CHROMIUM = await findChromium();
const STEP_MS = 20_000;

describe.skipIf('missing' in CHROMIUM)("the console's channel form follows each vendor's declared fields (issue 28)", { timeout: 120_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if ('missing' in CHROMIUM) throw new Error(CHROMIUM.missing);
    gateway = await startTestGateway();
    browser = await chromium.launch({ executablePath: CHROMIUM.executablePath, args: ['--no-sandbox'], ...(CHROMIUM.env ? { env: { ...process.env, ...CHROMIUM.env } } : {}) });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
    await page.goto(`${gateway.url}/console/login`);
    await page.getByRole('tab', { name: 'Admin token' }).click();
    await page.getByRole('tabpanel').getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('offers every vendor, shows each one its own credential inputs, and saves them under their names', async () => {
    const vendors = (await admin(gateway, 'GET', '/vendors')).json.data as Array<{ vendor: string; credentials: Array<{ label: string }> }>;
    await page.goto(`${gateway.url}/console/channels`);
    await page.getByRole('button', { name: 'Add channel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add channel' });
    const select = dialog.getByLabel(/^Vendor/);
    await expect.poll(() => select.locator('option').allTextContents()).toEqual(vendors.map((v) => v.vendor));
    const credentialLabels = () => dialog.locator('input[type=password], input[autocomplete=off]:not([type=password]), textarea[autocomplete=off]').evaluateAll((inputs) => inputs.map((input) => (input.parentElement?.firstChild?.textContent ?? '').trim()));
    for (const vendor of vendors) {
      await select.selectOption(vendor.vendor);
      await expect.poll(credentialLabels).toEqual(vendor.credentials.map((c) => c.label));
    }

    await select.selectOption('kling');
    await dialog.getByLabel(/^Name/).fill('kling-account');
    await dialog.getByLabel(/^Base URL/).fill('https://kling.example/');
    await dialog.getByLabel(/^Access key/).fill('ak-typed-1234');
    await dialog.getByLabel(/^Secret key/).fill('sk-typed-5678');
    await dialog.getByLabel(/^Models/).fill('kling-v2-master = kling-v2-master');
    await dialog.getByRole('button', { name: 'Add channel' }).click();
    await dialog.waitFor({ state: 'detached' });
    const saved = (await admin(gateway, 'GET', '/channels/kling-account')).json;
    expect(saved).toMatchObject({ vendor: 'kling', credentials: { api_key: null, access_key: expect.stringContaining('1234'), secret_key: expect.stringContaining('5678') } });
  });
});
