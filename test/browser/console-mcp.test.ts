import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { findChromium } from '../helpers/chromium.js';
import { startTestGateway, TEST_ADMIN_TOKEN, type TestGateway } from '../helpers/gateway.js';
import { admin } from '../helpers/admin.js';
import { startFakeMcpUpstream, type FakeMcpUpstream } from '../helpers/mcp-upstream.js';

/**
 * Issue 31 in the console: an operator grants a key MCP servers and tools by checkbox when
 * creating it, changes the grant later from the key's row, and reads the key's tool calls in the
 * request log filtered to tool calls. The grant is read back through the admin API.
 */
const CHROMIUM = await findChromium();
const STEP_MS = 20_000;

describe.skipIf('missing' in CHROMIUM)('the console: MCP access of a key, tool calls in the request log (issue 31)', { timeout: 180_000 }, () => {
  let gateway: TestGateway;
  let docs: FakeMcpUpstream;
  let browser: Browser;
  let page: Page;
  const go = (path: string) => page.goto(`${gateway.url}/console${path}`);
  const grantOf = async (name: string) => ((await admin(gateway, 'GET', '/keys?limit=200')).json.data as { name: string; mcp: unknown }[]).find((k) => k.name === name)?.mcp;

  beforeAll(async () => {
    if ('missing' in CHROMIUM) throw new Error(CHROMIUM.missing);
    docs = await startFakeMcpUpstream({ name: 'docs' });
    gateway = await startTestGateway({ file: { mcp_servers: [{ name: 'docs', url: docs.url }] } as never });
    // The test lists the server's tools: the key form offers them as checkboxes.
    expect((await admin(gateway, 'POST', '/mcp-servers/docs/test')).status).toBe(200);
    browser = await chromium.launch({ executablePath: CHROMIUM.executablePath, args: ['--no-sandbox'], ...(CHROMIUM.env ? { env: { ...process.env, ...CHROMIUM.env } } : {}) });
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
    await docs?.close();
  });

  it('creates a key with one tool of one server, then edits its grant from the row', async () => {
    await go('/token');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create key' });
    await dialog.getByLabel('Name').fill('mcp-agent');
    await dialog.getByRole('checkbox', { name: 'docs' }).check();
    const tools = dialog.getByRole('group', { name: 'Tools of docs' });
    await tools.getByRole('checkbox', { name: 'All tools' }).uncheck();
    await tools.getByRole('checkbox', { name: 'echo', exact: true }).check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog', { name: /Save your key/ }).getByRole('button', { name: 'I have stored it' }).click();
    expect(await grantOf('mcp-agent')).toEqual({ docs: ['echo'] });

    await page.getByRole('button', { name: 'MCP access of mcp-agent' }).click();
    const edit = page.getByRole('dialog', { name: 'MCP access of “mcp-agent”' });
    const editTools = edit.getByRole('group', { name: 'Tools of docs' });
    expect(await editTools.getByRole('checkbox', { name: 'echo', exact: true }).isChecked()).toBe(true);
    await editTools.getByRole('checkbox', { name: 'whoami' }).check();
    await edit.getByRole('button', { name: 'Save MCP access' }).click();
    await edit.waitFor({ state: 'detached' });
    expect(await grantOf('mcp-agent')).toEqual({ docs: ['echo', 'whoami'] });

    // Every tool again, then no MCP at all.
    await page.getByRole('button', { name: 'MCP access of mcp-agent' }).click();
    await edit.getByRole('group', { name: 'Tools of docs' }).getByRole('checkbox', { name: 'All tools' }).check();
    await edit.getByRole('button', { name: 'Save MCP access' }).click();
    await edit.waitFor({ state: 'detached' });
    expect(await grantOf('mcp-agent')).toEqual({ docs: null });
    await page.getByRole('button', { name: 'MCP access of mcp-agent' }).click();
    await edit.getByRole('checkbox', { name: 'docs' }).uncheck();
    await edit.getByRole('button', { name: 'Save MCP access' }).click();
    await edit.waitFor({ state: 'detached' });
    expect(await grantOf('mcp-agent')).toBeNull();
  });

  it('the request log shows only tool calls when asked', async () => {
    const created = await admin(gateway, 'POST', '/keys', { name: 'mcp-caller', mcp: { docs: ['echo'] } });
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${created.json.key}` } } });
    const client = new Client({ name: 'test-client', version: '1' });
    await client.connect(transport);
    await client.callTool({ name: 'docs__echo', arguments: { text: 'logged' } });
    await client.close();
    // A model request too, which the filter must leave out.
    const chat = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${created.json.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }) });
    expect(chat.status).toBeLessThan(500);
    await gateway.deps.usage.flush();
    await gateway.deps.requestLog.flush();

    await go('/requests');
    await page.getByLabel('Kind').selectOption('mcp');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/family=mcp/);
    const rows = page.locator('table tbody tr');
    await rows.first().waitFor();
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining('docs__echo')]);
  });
});
