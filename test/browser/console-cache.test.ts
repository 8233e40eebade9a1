import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer, createKey } from '../helpers/admin.js';
import { findChromium, launchOptions } from '../helpers/chromium.js';
import { consoleCall, inviteUser } from '../helpers/console.js';
import { call, startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';

/**
 * Issue 32 in a real browser: an operator turns the response cache on for a key and sets what a
 * hit costs; the request log marks the hit with what it saved; the operator and a key holder
 * purge cached answers from the console.
 */
const CHROMIUM = await findChromium();
const STEP_MS = 20_000;
const body = (content: string) => ({ model: 'delta-4.1', messages: [{ role: 'user', content }] });

describe.skipIf('missing' in CHROMIUM)('the response cache in the console (issue 32)', { timeout: 120_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const go = (path: string) => page.goto(`${gateway.url}/console${path}`);

  beforeAll(async () => {
    if ('missing' in CHROMIUM) throw new Error(CHROMIUM.missing);
    // A price, so a hit has a cost to save (simulated answers are otherwise free).
    gateway = await startTestGateway({ file: { prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } } } });
    browser = await chromium.launch(launchOptions(CHROMIUM));
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
    await go('/login');
    await page.getByRole('tab', { name: 'Admin token' }).click();
    await page.getByRole('tabpanel').getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('an operator turns caching on for a key and sets the hit cost; the request log shows the hit and what it saved', async () => {
    const key = await createKey(gateway, { name: 'eval runner' });
    expect((await call(gateway, 'POST', '/v1/chat/completions', body('before the switch'), bearer(key.key))).headers.get('x-cache')).toBeNull();

    await go('/cache');
    const global = page.getByRole('form', { name: 'Cache setting: global' });
    await global.getByLabel('Hit cost (share of the price)').fill('0.25');
    await global.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Global cache setting saved.').waitFor();
    expect((await admin(gateway, 'GET', '/cache')).json.global).toMatchObject({ enabled: false, hitCostFraction: 0.25 });

    await go('/token');
    await page.getByRole('button', { name: 'Cache of eval runner' }).click();
    const dialog = page.getByRole('dialog', { name: 'Response cache of “eval runner”' });
    await dialog.getByLabel('Caching').selectOption('on');
    await dialog.getByLabel('Default TTL (seconds)').fill('600');
    await dialog.getByLabel('Match').selectOption('exact');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Cache settings of “eval runner” saved.').waitFor();
    expect((await admin(gateway, 'GET', `/keys/${key.id}`)).json).toMatchObject({ cache_enabled: true, cache_ttl_seconds: 600, cache_mode: 'exact' });

    const miss = await call(gateway, 'POST', '/v1/chat/completions', body('cached in the console'), bearer(key.key));
    expect(miss.headers.get('x-cache')).toBe('MISS');
    const hit = await call(gateway, 'POST', '/v1/chat/completions', body('cached in the console'), bearer(key.key));
    expect(hit.headers.get('x-cache')).toBe('HIT');
    expect(hit.text).toBe(miss.text);

    await go('/requests');
    const row = page.getByRole('row').filter({ hasText: 'cache hit' });
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    await row.getByRole('button').last().click();
    const drawer = page.getByRole('dialog', { name: 'Request details' });
    await drawer.getByText('Response cache').waitFor();
    const saved = await drawer.getByText(/no upstream call: saved/).textContent();
    expect(saved).toContain(`saved ${hit.json.usage.total_tokens} tokens`);
    // The ledger: the hit cost a quarter of the answer's price, the rest saved.
    await gateway.deps.usage.flush();
    const [event] = await gateway.deps.db.selectFrom('usage_events').selectAll().where('request_id', '=', hit.headers.get('x-request-id')!).execute();
    expect(Number(event!.cache_hit)).toBe(1);
    expect(Number(event!.cost_usd)).toBeGreaterThan(0);
    expect(Number(event!.saved_cost_usd)).toBeCloseTo(Number(event!.cost_usd) * 3, 12);

    // The usage report counts the hit.
    const report = await admin(gateway, 'GET', `/usage?key=${key.id}`);
    expect(report.json.totals.cache_hits).toBe(1);
  });

  it('an operator purges a key\'s cached answers from its cache dialog', async () => {
    const key = await createKey(gateway, { name: 'purged by operator', cache_enabled: true });
    await call(gateway, 'POST', '/v1/chat/completions', body('operator purge'), bearer(key.key));
    expect((await call(gateway, 'POST', '/v1/chat/completions', body('operator purge'), bearer(key.key))).headers.get('x-cache')).toBe('HIT');
    await go('/token');
    await page.getByRole('button', { name: 'Cache of purged by operator' }).click();
    const dialog = page.getByRole('dialog', { name: 'Response cache of “purged by operator”' });
    await dialog.getByRole('button', { name: 'Purge cached answers' }).click();
    await page.getByText('1 cached answer of “purged by operator” purged.').waitFor();
    expect((await call(gateway, 'POST', '/v1/chat/completions', body('operator purge'), bearer(key.key))).headers.get('x-cache')).toBe('MISS');
  });

  it('a key holder purges their own key\'s cached answers, and cannot set a shared namespace', async () => {
    const person = await inviteUser(gateway);
    const made = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'my cached key', cache_enabled: true }, { session: person.session });
    expect(made.status, made.text).toBe(201);
    await call(gateway, 'POST', '/v1/chat/completions', body('holder purge'), bearer(made.json.key));
    expect((await call(gateway, 'POST', '/v1/chat/completions', body('holder purge'), bearer(made.json.key))).headers.get('x-cache')).toBe('HIT');

    const holder = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    holder.setDefaultTimeout(STEP_MS);
    const [name, value] = person.session.cookie.split('=') as [string, string];
    await holder.addCookies([{ name, value, url: gateway.url }]);
    const holderPage = await holder.newPage();
    await holderPage.goto(`${gateway.url}/console/token`);
    await holderPage.getByRole('button', { name: 'Cache of my cached key' }).click();
    const dialog = holderPage.getByRole('dialog', { name: 'Response cache of “my cached key”' });
    expect(await dialog.getByLabel('Shared namespace').count()).toBe(0);
    expect(await dialog.getByLabel('Caching').inputValue()).toBe('on');
    await dialog.getByRole('button', { name: 'Purge cached answers' }).click();
    await holderPage.getByText('1 cached answer of “my cached key” purged.').waitFor();
    expect((await call(gateway, 'POST', '/v1/chat/completions', body('holder purge'), bearer(made.json.key))).headers.get('x-cache')).toBe('MISS');
    await holder.close();
  });
});
