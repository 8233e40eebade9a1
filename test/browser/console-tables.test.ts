import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium } from '../helpers/chromium.js';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';

/**
 * The console as operators use it (issue 22), in a real browser at 1280 px and 390 px: every row
 * action of Keys, Users, Request log and Channels is on screen with no sideways scrolling and no
 * clipped column; the request log filters by request id and exports the filtered requests as CSV;
 * a channel's disable asks first; "Test all" shows a result on each row. Issue 35: every page (and
 * the sign-in page) at both widths, with no button cut off by the page or by a scrolling frame.
 */
const CHROMIUM = await findChromium();
const SHOTS = join(process.cwd(), 'test-artifacts', 'screenshots');
const STEP_MS = 20_000;
const WIDTHS = [1280, 390] as const;
const PAGES = [
  { path: '/token', heading: 'API keys' },
  { path: '/users', heading: 'Users' },
  { path: '/requests', heading: 'Request log' },
  { path: '/channels', heading: 'Channels' },
  { path: '/models', heading: 'Models & prices' },
] as const;
/** Pages without row actions, held to the same no-overflow rule (issue 35: every page at both widths). */
const OTHER_PAGES = [
  { path: '/usage', heading: 'Usage' },
  { path: '/tasks', heading: 'Video tasks' },
  { path: '/playground', heading: 'Playground' },
  { path: '/mcp-servers', heading: 'MCP servers' },
] as const;

/**
 * Every visible button and button-like link in the page's main area, with where it is cut off:
 * outside the viewport's width, or outside an ancestor that hides or scrolls its overflow (a
 * clipped action). Issue 35: every console page, at both widths.
 */
async function clippedActions(page: Page, width: number): Promise<string[]> {
  // A script, not a function: this file is type-checked without the DOM's types.
  return page.evaluate(`(() => {
    const found = [];
    const main = document.querySelector('main');
    for (const el of main ? main.querySelectorAll('button, a.button, [role="button"], input[type="submit"]') : []) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      const name = el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40) ?? el.tagName;
      if (box.left + window.scrollX < -1 || box.right + window.scrollX > ${width} + 1) found.push(name + ': outside the page (' + Math.round(box.left) + '..' + Math.round(box.right) + ')');
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        if (getComputedStyle(up).overflowX === 'visible') continue;
        const frame = up.getBoundingClientRect();
        if (box.left < frame.left - 1 || box.right > frame.right + 1) {
          found.push(name + ': clipped by ' + up.tagName.toLowerCase() + '.' + [...up.classList].join('.'));
          break;
        }
      }
    }
    return found;
  })()`);
}

const adminCall = async (gateway: TestGateway, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${gateway.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as any;
};

describe.skipIf('missing' in CHROMIUM)('the console tables and tools an operator uses (issue 22)', { timeout: 180_000 }, () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  const go = (path: string) => page.goto(`${gateway.url}/console${path}`);

  beforeAll(async () => {
    if ('missing' in CHROMIUM) throw new Error(CHROMIUM.missing);
    mkdirSync(SHOTS, { recursive: true });
    gateway = await startTestGateway({ file: { prices: { 'delta-4.1': { prompt_per_1m: 2, completion_per_1m: 8 } } } });
    // Long names and many columns: what made the old tables overflow.
    await adminCall(gateway, 'POST', '/users', { email: 'a.person.with.a.rather.long.address@example.org', name: 'Someone With A Long Name', budget_usd: 5, models: ['delta-4.1'] });
    const key = (await adminCall(gateway, 'POST', '/keys', { name: 'a-key-with-a-long-descriptive-name-for-the-nightly-batch', budget_usd: 2, models: ['delta-4.1', 'epsilon-4.7'] })).key as string;
    const chat = (model: string, requestId: string) =>
      fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
      });
    expect((await chat('delta-4.1', 'req-ok-1')).status).toBe(200);
    expect((await chat('delta-4.1', 'req-ok-2')).status).toBe(200);
    expect((await chat('no-such-model', 'req-bad-model')).status).toBeGreaterThanOrEqual(400);

    browser = await chromium.launch({ executablePath: CHROMIUM.executablePath, args: ['--no-sandbox'], ...(CHROMIUM.env ? { env: { ...process.env, ...CHROMIUM.env } } : {}) });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
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
  });

  for (const width of WIDTHS) {
    it(`at ${width} px every row action of Keys, Users, Request log and Channels is on screen, with no sideways scroll`, async () => {
      await page.setViewportSize({ width, height: 900 });
      for (const { path, heading } of PAGES) {
        await go(path);
        await page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
        const actions = page.locator('td.row-actions').locator('button, a');
        await actions.first().waitFor();
        const count = await actions.count();
        expect(count, heading).toBeGreaterThan(0);
        for (let i = 0; i < count; i++) {
          const action = actions.nth(i);
          await action.scrollIntoViewIfNeeded();
          const box = await action.boundingBox();
          const name = `${heading}: ${await action.getAttribute('aria-label')}`;
          expect(box, name).not.toBeNull();
          expect(box!.x, name).toBeGreaterThanOrEqual(0);
          expect(box!.x + box!.width, name).toBeLessThanOrEqual(width);
        }
        expect(Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')), heading).toBeLessThanOrEqual(0);
        // No table scrolls inside its own frame either: nothing is clipped at its right edge.
        const clipped = await page.evaluate("[...document.querySelectorAll('.data-table .table-wrap')].filter((wrap) => wrap.scrollWidth > wrap.clientWidth + 1).length");
        expect(clipped, heading).toBe(0);
        expect(await clippedActions(page, width), heading).toEqual([]);
        await page.screenshot({ path: join(SHOTS, `table-${path.slice(1)}-${width}.png`), fullPage: true });
      }
      for (const { path, heading } of OTHER_PAGES) {
        await go(path);
        await page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
        await page.waitForLoadState('networkidle');
        expect(Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')), heading).toBeLessThanOrEqual(0);
        const clipped = await page.evaluate("[...document.querySelectorAll('.table-wrap')].filter((wrap) => wrap.scrollWidth > wrap.clientWidth + 1).length");
        expect(clipped, heading).toBe(0);
        expect(await clippedActions(page, width), heading).toEqual([]);
        await page.screenshot({ path: join(SHOTS, `page-${path.slice(1)}-${width}.png`), fullPage: true });
      }
    });

    it(`at ${width} px the signed-out sign-in page has no clipped action and no sideways scroll`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      context.setDefaultTimeout(STEP_MS);
      const signedOut = await context.newPage();
      await signedOut.goto(`${gateway.url}/console/login`);
      await signedOut.getByRole('heading', { name: 'Sign in to the gateway console' }).waitFor();
      await signedOut.waitForLoadState('networkidle');
      expect(Number(await signedOut.evaluate('document.documentElement.scrollWidth - window.innerWidth'))).toBeLessThanOrEqual(0);
      expect(await clippedActions(signedOut, width)).toEqual([]);
      await context.close();
    });
  }

  it('a key whose budget is used up reads "budget spent", not "active" (issue 35)', async () => {
    const created = await adminCall(gateway, 'POST', '/keys', { name: 'spent-key', budget_usd: 1 });
    const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }),
    });
    expect(answer.status).toBe(200);
    await gateway.deps.usage.flush();
    // The operator lowers the budget below what the key has spent.
    const id = created.id ?? created.data?.id;
    const patched = await fetch(`${gateway.url}/admin/api/keys/${id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ budget_usd: 0.000000001 }),
    });
    expect(patched.status, await patched.text()).toBe(200);
    await page.setViewportSize({ width: 1280, height: 900 });
    await go('/token');
    await page.getByLabel('Search keys').fill('spent-key');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await expect.poll(() => page.locator('tbody tr').first().textContent()).toContain('budget spent');
  });

  it('filters the request log by request id, shows times to the second, and exports the filtered requests as CSV', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await go('/requests');
    await page.getByRole('heading', { name: 'Request log' }).waitFor();
    await page.getByLabel('Request id').fill('req-ok-2');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.url()).toContain('request_id=req-ok-2');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    // The row's time carries seconds (h:mm:ss in the browser's locale).
    expect(await page.locator('tbody tr th').first().textContent()).toMatch(/\d{1,2}:\d{2}:\d{2}/);

    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export CSV' }).click();
    const file = await (await download).path();
    const lines = readFileSync(file, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^time,request_id,status/);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toContain('req-ok-2');
    expect(lines[1]).toContain('a-key-with-a-long-descriptive-name-for-the-nightly-batch');

    // The drawer's bill at 390 px: each line a card, its Price and Cost on screen (issue 35).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: /Details of request/ }).click();
    const bill = page.getByRole('dialog', { name: 'Request details' }).locator('table', { has: page.locator('caption', { hasText: 'Cost by billed dimension' }) });
    await bill.waitFor();
    for (const label of ['Price', 'Cost']) {
      const cell = bill.locator(`td[data-label="${label}"]`).first();
      expect((await cell.textContent())?.trim(), label).toMatch(/\$\d/);
      const box = (await cell.boundingBox())!;
      expect(box.x + box.width, `${label} ends inside the screen`).toBeLessThanOrEqual(390);
    }
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Errors by code. The refused request keeps the model the client asked for in its message, not
    // as a model of its own (issue 34: junk names make no usage rows).
    await go('/requests?status=error');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByRole('button', { name: /Details of request/ }).click();
    const drawer = page.getByRole('dialog', { name: 'Request details' });
    await drawer.getByRole('heading', { name: 'Attempts' }).waitFor();
    expect(await drawer.textContent()).toContain('[model asked: no-such-model]');
    await page.keyboard.press('Escape');
  });

  it('asks before disabling a channel, and "Test all" shows each channel its result', async () => {
    await go('/channels');
    await page.getByRole('heading', { name: 'Channels' }).waitFor();
    await page.getByRole('button', { name: 'Disable simulator-openai' }).click();
    const confirm = page.getByRole('dialog', { name: 'Disable simulator-openai?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await adminCall(gateway, 'GET', '/channels/simulator-openai')).enabled).toBe(true);
    await page.getByRole('button', { name: 'Disable simulator-openai' }).click();
    await confirm.getByRole('button', { name: 'Disable channel' }).click();
    await page.getByRole('button', { name: 'Enable simulator-openai' }).waitFor();
    expect((await adminCall(gateway, 'GET', '/channels/simulator-openai')).enabled).toBe(false);
    await page.getByRole('button', { name: 'Enable simulator-openai' }).click();
    await page.getByRole('button', { name: 'Disable simulator-openai' }).waitFor();

    await page.getByRole('button', { name: 'Test all' }).click();
    const enabled = ((await adminCall(gateway, 'GET', '/channels')).data as Array<{ id: string; enabled: boolean }>).filter((c) => c.enabled);
    expect(enabled.length).toBeGreaterThan(1);
    for (const channel of enabled) {
      await expect.poll(() => page.getByRole('status', { name: `Test result of ${channel.id}` }).textContent(), { timeout: STEP_MS }).toMatch(/✓ OK|✕/);
    }
    await page.getByRole('button', { name: 'Test all' }).waitFor();
    expect(await page.getByRole('status', { name: 'Test result of simulator-openai' }).textContent()).toMatch(/✓ OK 200/);
  });

  it('searches keys by name on the keys page', async () => {
    await go('/token');
    await page.getByLabel('Search keys').fill('NIGHTLY');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect(await page.locator('tbody tr').first().textContent()).toContain('nightly-batch');
    await page.getByLabel('Search keys').fill('nothing-like-this');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('No key name contains “nothing-like-this”.').waitFor();
  });
});
