import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, createKey } from '../helpers/admin.js';
import { findChromium, launchOptions } from '../helpers/chromium.js';
import { inviteUser } from '../helpers/console.js';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';

/**
 * Issue 35's smaller console rows in a real browser: a fresh install's sign-in opens on the admin
 * token (Email once someone has a password); "Sign out everywhere" sits below "API reference" and
 * asks first; deleting a model offers to take it out of allowances and keys; a user's budget is
 * said one way, "for all … keys together", on the users page and in the key form.
 */
const CHROMIUM = await findChromium();
const STEP_MS = 20_000;

describe.skipIf('missing' in CHROMIUM)("the operator's day in the console, round two (issue 35)", { timeout: 120_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  const go = (path: string) => page.goto(`${gateway.url}/console${path}`);

  beforeAll(async () => {
    if ('missing' in CHROMIUM) throw new Error(CHROMIUM.missing);
    gateway = await startTestGateway();
    browser = await chromium.launch(launchOptions(CHROMIUM));
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('opens sign-in on the admin token on a fresh install, and on email once someone has a password', async () => {
    await go('/login');
    await expect.poll(() => page.getByRole('tab', { name: 'Admin token' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('tab', { name: 'Email & password' }).getAttribute('aria-selected')).toBe('false');
    await page.getByRole('tabpanel').getByLabel('Admin token').waitFor();

    await inviteUser(gateway, { email: 'has-a-password@example.org' });
    await go('/login');
    await page.getByRole('tabpanel').getByLabel('Email').waitFor();
    // The answer has come (the request is done) and the page stays on Email.
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('tab', { name: 'Email & password' }).getAttribute('aria-selected')).toBe('true');
  });

  it('puts "Sign out everywhere" below "API reference" and asks before ending every session', async () => {
    await go('/login');
    await page.getByRole('tab', { name: 'Admin token' }).click();
    await page.getByRole('tabpanel').getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    const nav = page.getByRole('navigation', { name: 'Console' });
    const reference = (await nav.getByRole('link', { name: 'API reference' }).boundingBox())!;
    const everywhere = (await nav.getByRole('button', { name: 'Sign out everywhere' }).boundingBox())!;
    expect(everywhere.y).toBeGreaterThan(reference.y);

    await nav.getByRole('button', { name: 'Sign out everywhere' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out everywhere?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    // Still signed in after Cancel.
    await page.reload();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(page.url()).not.toContain('/login');
  });

  it('deletes a model from Models & prices, taking it out of allowances and keys when asked', async () => {
    expect((await admin(gateway, 'POST', '/models', { id: 'house-gone', kind: 'chat' })).status).toBe(201);
    const person = await inviteUser(gateway, { models: ['house-gone', 'delta-4.1'] });
    const key = await createKey(gateway, { models: ['house-gone', 'delta-4.1'] });
    await go('/models');
    await page.getByRole('button', { name: 'Delete house-gone' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete model house-gone?' });
    const prune = dialog.getByRole('checkbox', { name: "Also remove it from users' allowances and keys' model lists" });
    expect(await prune.isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Delete model' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(async () => (await admin(gateway, 'GET', `/keys/${key.id}`)).json.models).toEqual(['delta-4.1']);
    expect((await admin(gateway, 'GET', `/users/${person.id}`)).json.models).toEqual(['delta-4.1']);
  });

  it('shows a bad status filter of the request log as a sentence, not a regex', async () => {
    await go('/requests?status=weird');
    await page.getByText("'status' must be an HTTP status such as 429, a class such as 4xx, 'error' or 'success'").first().waitFor();
    expect(await page.getByText('must match the pattern').count()).toBe(0);
  });

  it("says a user's budget one way: for all their keys together, on the users page and in the key form", async () => {
    const person = await inviteUser(gateway, { email: 'budgeted@example.org', budget_usd: 1 });
    await go('/users');
    await page.getByText('budget $1.00 for all their keys together').first().waitFor();

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    const [name, value] = person.session.cookie.split('=') as [string, string];
    await context.addCookies([{ name, value, url: gateway.url }]);
    const holder = await context.newPage();
    await holder.goto(`${gateway.url}/console/token`);
    await holder.getByText('a budget of $1.00 for all your keys together').waitFor();
    await holder.getByRole('button', { name: /create/i }).first().click();
    await holder.getByText('Your budget is $1.00 for all your keys together').waitFor();
    expect(await holder.getByText(/per key|in all:/).count()).toBe(0);
    await context.close();
  });
});
