import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../helpers/chromium.js';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { openaiSimulator } from '../../src/providers/openai/simulator.js';
import { startSimulator, type RunningSimulator } from '../../src/simulator/server.js';

/**
 * The console in a real browser (issue 12): Chromium driven by playwright-core against a gateway
 * on a free port, clicking and typing as a person would (accessible names only). An operator
 * invites a user; the user signs in, makes a key, copies it, calls the gateway with the openai
 * SDK, finds the call in the request log and usage, revokes the key and is refused. A full-page
 * screenshot of each page goes to test-artifacts/screenshots/. The browser: CHROMIUM_PATH, else
 * Debian's /usr/bin/chromium, else the one the @sparticuz/chromium dev dependency ships (issue 24;
 * CHROMIUM_PATH=@sparticuz/chromium picks it where Debian's is installed too).
 */
const CHROMIUM = await findChromium();
if ('missing' in CHROMIUM) process.stderr.write(`browser suite skipped: ${CHROMIUM.missing}\n`);
const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
const PASSWORD = 'a long and careful passphrase';
const STEP_MS = 20_000;

describe.skipIf('missing' in CHROMIUM)('the console in a browser (issue 12)', { timeout: 120_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let operator: Page;
  let person: { context: BrowserContext; page: Page };
  let email: string;
  let inviteUrl: string;
  let secret: string;

  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const go = (page: Page, path: string) => page.goto(`${gateway.url}/console${path}`);
  const sdk = () => new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 });

  beforeAll(async () => {
    if ('missing' in CHROMIUM) throw new Error(CHROMIUM.missing);
    mkdirSync(SHOTS, { recursive: true });
    gateway = await startTestGateway({ file: { prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } }, simulator: { video_task_ms: 200 } } });
    browser = await chromium.launch({ executablePath: CHROMIUM.executablePath, args: ['--no-sandbox'], ...(CHROMIUM.env ? { env: { ...process.env, ...CHROMIUM.env } } : {}) });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    operator = await context.newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('an operator signs in with the admin token and invites a person', async () => {
    await go(operator, '/login');
    await operator.getByRole('tab', { name: 'Admin token' }).click();
    await operator.getByRole('tabpanel').getByLabel('Admin token').fill(TEST_ADMIN_TOKEN);
    await operator.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => new URL(operator.url()).pathname).toBe('/console/token');
    await operator.getByRole('heading', { name: 'API keys' }).waitFor();
    await shot(operator, 'operator-keys');

    await operator.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Users' }).click();
    await operator.getByRole('heading', { name: 'Users' }).waitFor();
    await operator.getByRole('button', { name: 'Invite person' }).click();
    const invite = operator.getByRole('dialog', { name: 'Invite a person' });
    email = `ann-${Date.now()}@example.org`;
    await invite.getByLabel('Email').fill(email);
    await invite.getByLabel('Name').fill('Ann Example');
    await invite.getByRole('button', { name: 'Create invitation' }).click();
    const link = operator.getByRole('dialog', { name: 'Invitation created' }).getByLabel('Invitation link', { exact: true });
    inviteUrl = await link.inputValue();
    expect(inviteUrl).toMatch(/\/console\/invite#token=/);
    await shot(operator, 'operator-users-invitation');
    await operator.getByRole('button', { name: 'Done' }).click();
    await operator.getByRole('cell', { name: 'Ann Example' }).or(operator.getByText('Ann Example')).first().waitFor();
  });

  it('the person sets a password from the link, signs out, and signs in with email and password', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(STEP_MS);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.url });
    person = { context, page: await context.newPage() };
    const page = person.page;
    // The link as the operator copied it (the gateway's own origin in tests).
    await page.goto(inviteUrl.replace(/^https?:\/\/[^/]+/, gateway.url));
    await shot(page, 'invite');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in to the gateway console' }).waitFor();
    await shot(page, 'sign-in');
    const form = page.getByRole('tabpanel');
    await form.getByLabel('Email').fill(email);
    await form.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/token');
  });

  it('makes a key at /console/token, copies it with the copy button, and calls the gateway with the openai SDK', async () => {
    const page = person.page;
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create key' });
    await dialog.getByLabel('Name').fill('laptop');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const saved = page.getByRole('dialog', { name: /Save your key/ });
    await saved.getByRole('button', { name: 'Copy secret key' }).click();
    await saved.getByText('Copied to the clipboard.').waitFor();
    // Page code as text: the test's own TypeScript has no DOM types.
    secret = String(await page.evaluate('navigator.clipboard.readText()'));
    expect(secret).toMatch(/^sk-gw-/);
    expect(await saved.getByLabel('Secret key', { exact: true }).inputValue()).toBe(secret);
    // The snippets point at this gateway.
    await expect.poll(() => saved.textContent()).toContain(gateway.url);
    await shot(page, 'key-secret-once');
    await saved.getByRole('button', { name: 'I have stored it' }).click();

    const completion = await sdk().chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'Hello from the browser suite' }] });
    expect(completion.choices[0]!.message.content).toContain('Hello from the browser suite');
  });

  it('sees the call in the request log, with its details, and in usage', async () => {
    const page = person.page;
    await page.getByRole('link', { name: 'Request log' }).click();
    await page.getByRole('heading', { name: 'Request log' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'delta-4.1' });
    await expect.poll(() => row.count()).toBe(1);
    await expect.poll(() => row.textContent()).toContain('200');
    await shot(page, 'request-log');
    await row.getByRole('button', { name: /Details of request/ }).click();
    const drawer = page.getByRole('dialog', { name: 'Request details' });
    await drawer.getByText('Bearer [masked]').waitFor();
    // The id the client got in x-request-id, to find the request again.
    await drawer.getByText(/^req_/).waitFor();
    expect(await drawer.textContent()).not.toContain(secret);
    await shot(page, 'request-detail');
    await page.keyboard.press('Escape');

    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('heading', { name: 'Usage' }).first().waitFor();
    const requests = page.getByRole('list', { name: 'Totals' }).or(page.getByLabel('Totals')).first();
    await expect.poll(async () => (await requests.textContent()) ?? '').toMatch(/Requests\s*1(?!\d)/);
    await shot(page, 'usage');
  });

  it("revokes the key with a confirmation; the next call is a 401; the person never sees the operator's keys", async () => {
    const page = person.page;
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Revoke laptop' }).click();
    const confirm = page.getByRole('dialog', { name: /Revoke/ });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    // Revoked keys leave the list until asked for.
    await page.getByLabel(/Show revoked keys/).check();
    await expect.poll(() => page.getByRole('row').filter({ hasText: 'laptop' }).textContent()).toMatch(/revoked/i);
    await shot(page, 'key-revoked');
    await expect(sdk().chat.completions.create({ model: 'delta-4.1', messages: [{ role: 'user', content: 'again' }] })).rejects.toBeInstanceOf(OpenAI.AuthenticationError);

    // UI: only their own key is listed, never the operator's bootstrap key.
    expect(await page.getByRole('main').textContent()).not.toContain('bootstrap');
    // API, with the person's own session cookie: the operator API refuses, the console API is scoped.
    const fromPage = await page.evaluate(async () => {
      const adminKeys = await fetch('/admin/api/keys');
      const own = (await (await fetch('/console/api/keys')).json()) as { data: Array<{ name: string }> };
      return { adminStatus: adminKeys.status, own: own.data.map((k) => k.name) };
    });
    expect(fromPage).toEqual({ adminStatus: 403, own: ['laptop'] });
  });

  it('the operator sees channels (disables and re-enables one, runs a test), video tasks and the playground stream', async () => {
    await go(operator, '/channels');
    await operator.getByRole('heading', { name: /Channels/ }).first().waitFor();
    await operator.getByRole('button', { name: 'Disable simulator-openai' }).click();
    // Disabling asks first (issue 22).
    await operator.getByRole('dialog', { name: 'Disable simulator-openai?' }).getByRole('button', { name: 'Disable channel' }).click();
    await operator.getByRole('button', { name: 'Enable simulator-openai' }).waitFor();
    const channels = await operator.evaluate(async () => ((await (await fetch('/admin/api/channels/simulator-openai')).json()) as { enabled: boolean }).enabled);
    expect(channels).toBe(false);
    await operator.getByRole('button', { name: 'Enable simulator-openai' }).click();
    await operator.getByRole('button', { name: 'Disable simulator-openai' }).waitFor();
    await operator.getByRole('button', { name: 'Test simulator-openai' }).click();
    // Test asks which model (issue 35), then shows the answer in its dialog and on the row.
    const testDialog = operator.getByRole('dialog', { name: 'Test simulator-openai' });
    await testDialog.getByRole('button', { name: 'Run test' }).click();
    await testDialog.getByText(/✓ OK/).waitFor();
    await testDialog.getByRole('button', { name: 'Close' }).click();
    const row = operator.getByRole('row').filter({ has: operator.getByRole('button', { name: 'Test simulator-openai' }) });
    await row.getByText(/✓ OK 200/).waitFor();
    await shot(operator, 'channels');

    // A video task, finished, so the task page has a row with a link to the result.
    const key = await operatorKey(gateway);
    const task = await fetch(`${gateway.url}/v1/video/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'zeta-1.0-r2v', prompt: 'A cat opens a fan', images: ['https://example.com/ref.png'] }),
    });
    expect(task.status).toBe(200);
    await go(operator, '/tasks');
    await operator.getByRole('heading', { name: 'Video tasks' }).waitFor();
    await expect
      .poll(async () => {
        await operator.getByRole('button', { name: 'Refresh' }).click();
        return operator.getByRole('row').filter({ hasText: 'zeta-1.0-r2v' }).getByRole('link', { name: 'Open result' }).count();
      }, { timeout: STEP_MS })
      .toBe(1);
    await shot(operator, 'tasks');

    await go(operator, '/playground');
    await operator.getByRole('heading', { name: 'Playground' }).waitFor();
    // The session is the credential (issue 35): the key is picked by name, no secret is pasted.
    expect(await operator.getByLabel('API key secret').count()).toBe(0);
    const keyPicker = operator.getByRole('combobox', { name: /^API key/ });
    await keyPicker.locator('option', { hasText: 'playground' }).first().waitFor({ state: 'attached' });
    await keyPicker.selectOption(await keyPicker.locator('option', { hasText: 'playground' }).first().getAttribute('value'));
    await operator.getByRole('combobox', { name: /^Model/ }).selectOption('delta-4.1');
    await operator.getByLabel('Message', { exact: true }).fill('Stream this sentence back');
    await operator.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => operator.getByTestId('playground-output').textContent()).toContain('Stream this sentence back');
    await shot(operator, 'playground');
  });

  it('issue 21: the operator adds a vendor account and a model they name, prices it and serves traffic on it without a restart; costs are never $0', async () => {
    const vendor: RunningSimulator = await startSimulator(openaiSimulator);
    const vendorSecret = 'sk-acme-vendor-secret-5678';
    try {
      // A model of their own, with its price.
      await go(operator, '/models');
      await operator.getByRole('heading', { name: 'Models & prices' }).waitFor();
      await operator.getByRole('button', { name: 'Add model' }).click();
      const add = operator.getByRole('dialog', { name: 'Add model' });
      await add.getByLabel('Model id').fill('acme-chat');
      await add.getByLabel('Input', { exact: true }).fill('1');
      await add.getByLabel('Output', { exact: true }).fill('4');
      await add.getByLabel('Cached input', { exact: true }).fill('0.1');
      await add.getByRole('button', { name: 'Add model' }).click();
      const modelRow = operator.getByRole('row').filter({ hasText: 'acme-chat' });
      await expect.poll(() => modelRow.textContent()).toContain('not served yet');
      await expect.poll(() => modelRow.textContent()).toContain('in $1');
      // The default catalog served by the simulator is free (issue 35), and says what a vendor would cost.
      await expect.poll(() => operator.getByRole('row').filter({ hasText: 'epsilon-4.7' }).textContent()).toMatch(/simulated answers.*free \(simulator\).*in \$0\.6.*once a vendor serves it/);

      // The vendor account: a channel pointing at the vendor, mapping the model.
      await go(operator, '/channels');
      await operator.getByRole('button', { name: 'Add channel' }).click();
      const channel = operator.getByRole('dialog', { name: 'Add channel' });
      await channel.getByLabel(/^Name/).fill('acme');
      await channel.getByLabel(/^Vendor/).selectOption('openai');
      await channel.getByLabel(/^Base URL/).fill(`${vendor.url}/v1`);
      await channel.getByLabel(/^API key/).fill(vendorSecret);
      await channel.getByLabel(/^Models/).fill('acme-chat = gpt-4o-mini');
      await channel.getByRole('button', { name: 'Add channel' }).click();
      const channelRow = operator.getByRole('row').filter({ has: operator.getByRole('button', { name: 'Test acme' }) });
      await expect.poll(() => channelRow.textContent()).toContain(`••••${vendorSecret.slice(-4)}`);
      expect(await operator.getByRole('main').textContent()).not.toContain(vendorSecret);
      await channelRow.getByRole('button', { name: 'Test acme' }).click();
      const testAcme = operator.getByRole('dialog', { name: 'Test acme' });
      await testAcme.getByRole('button', { name: 'Run test' }).click();
      await testAcme.getByText(/✓ OK/).waitFor();
      await testAcme.getByRole('button', { name: 'Close' }).click();
      await channelRow.getByText(/✓ OK 200/).waitFor();
      await shot(operator, 'channels-added');

      // Traffic, at once, with the vendor's credential upstream, billed at the operator's price.
      const key = await operatorKey(gateway);
      const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const completion = await client.chat.completions.create({ model: 'acme-chat', messages: [{ role: 'user', content: 'Hello vendor' }] });
      expect(completion.model).toBe('acme-chat');
      expect(vendor.requests.at(-1)!.headers.authorization).toBe(`Bearer ${vendorSecret}`);
      await client.chat.completions.create({ model: 'epsilon-4.7', messages: [{ role: 'user', content: 'Hello sheet' }] });

      await go(operator, '/requests');
      const requestRow = operator.getByRole('row').filter({ hasText: 'acme-chat' });
      await expect.poll(() => requestRow.count()).toBe(1);
      await requestRow.getByRole('button', { name: /Details of request/ }).click();
      const drawer = operator.getByRole('dialog', { name: 'Request details' });
      const bill = drawer.getByRole('table', { name: 'Cost by billed dimension' });
      await expect.poll(() => bill.textContent()).toMatch(/Input tokens.*\$1\.00 per 1M/);
      await expect.poll(() => bill.textContent()).toMatch(/Output tokens.*\$4\.00 per 1M/);
      await shot(operator, 'request-cost-lines');
      await operator.keyboard.press('Escape');
      const sheetRow = operator.getByRole('row').filter({ hasText: 'epsilon-4.7' });
      // A simulated answer costs nothing unless the operator prices the model.
      await expect.poll(() => sheetRow.locator('td[data-label="Cost"]').textContent()).toBe('$0.00');

      // Spend against budgets on the keys page.
      await go(operator, '/token');
      await expect.poll(() => operator.getByLabel('Spending').textContent()).toMatch(/The keys listed spent \$0\.0*[1-9]\d* this month/);
      await shot(operator, 'keys-spend');
    } finally {
      await vendor.close();
    }
  });

  it('works at phone width: the menu reaches every page and none overflows sideways', async () => {
    const page = person.page;
    await page.setViewportSize({ width: 390, height: 844 });
    for (const name of ['API keys', 'Usage', 'Request log', 'Video tasks', 'Playground']) {
      await page.getByRole('button', { name: /Menu/ }).click();
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name }).click();
      await page.getByRole('heading', { name, exact: true }).first().waitFor();
      expect(Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')), name).toBeLessThanOrEqual(0);
    }
    await shot(page, 'phone-playground');
  });
});

/** A fresh operator key through the admin API (the playground picks it by name). */
async function operatorKey(gateway: TestGateway): Promise<string> {
  const response = await fetch(`${gateway.url}/admin/api/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'playground' }),
  });
  return ((await response.json()) as { key: string }).key;
}
