import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../helpers/admin.js';
import { startFakeMcpUpstream, type FakeMcpUpstream } from '../helpers/mcp-upstream.js';
import { bin, jsonLines, makeSandbox, runCli, type Sandbox } from './cli.js';
import { MODELS, startAgentGateway, type AgentGateway } from './gateway.js';

/**
 * Gemini CLI (`gemini -p`) with the gateway's `/mcp` as an MCP server (issue 31), configured as
 * docs/mcp.md says: `mcpServers.gateway` with `httpUrl` and an Authorization header (`trust`: a
 * headless run cannot confirm a call). The model is offered exactly the key's tools and calls one.
 */
const settings = (gateway: AgentGateway, mcpKey: string) => ({
  security: { auth: { selectedType: 'gemini-api-key' } },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  tools: { exclude: ['run_shell_command', 'write_file', 'replace', 'web_fetch', 'google_web_search'] },
  mcpServers: { gateway: { httpUrl: `${gateway.url}/mcp`, headers: { Authorization: `Bearer ${mcpKey}` }, trust: true } },
});

describe('Gemini CLI with the MCP gateway', () => {
  let gateway: AgentGateway;
  let sandbox: Sandbox;
  let docs: FakeMcpUpstream;

  beforeAll(async () => {
    docs = await startFakeMcpUpstream({ name: 'docs' });
    gateway = await startAgentGateway('defaults', { mcp_servers: [{ name: 'docs', url: docs.url }] });
    sandbox = makeSandbox('gemini-cli-mcp');
    mkdirSync(join(sandbox.home, '.gemini'));
  });
  afterAll(async () => {
    await gateway?.stop();
    sandbox?.remove();
    await docs?.close();
  });

  it("is offered exactly its key's tools and calls one", async () => {
    const key = await createKey(gateway, { name: 'gemini-mcp', mcp: { docs: ['echo', 'count'] } });
    writeFileSync(join(sandbox.home, '.gemini', 'settings.json'), JSON.stringify(settings(gateway, key.key)));
    const callsBefore = docs.calls.length;
    const mark = gateway.mark();
    const result = await runCli(bin('gemini'), ['--model', MODELS.gemini, '-p', 'Call the tool docs__echo once, then say what it answered.', '--output-format', 'stream-json'], {
      cwd: sandbox.work,
      env: { ...sandbox.env, GOOGLE_GEMINI_BASE_URL: gateway.url, GEMINI_API_KEY: gateway.key, GEMINI_CLI_TRUST_WORKSPACE: 'true' },
    });
    const calls = await gateway.expectCleanRun(mark, 'gemini-cli mcp');
    expect(result.code, result.describe()).toBe(0);
    const offered = [...new Set(calls[0]!.requestBody.match(/\w*docs__\w+/g) ?? [])].sort();
    expect(offered, result.describe()).toEqual(expect.arrayContaining([expect.stringMatching(/docs__count$/), expect.stringMatching(/docs__echo$/)]));
    expect(offered.filter((name) => /docs__(fail|whoami|add_tool)/.test(name))).toEqual([]);
    const events = jsonLines(result.stdout);
    expect(events.filter((e) => e.type === 'tool_use').map((e) => e.tool_name), result.describe()).toEqual([expect.stringMatching(/docs__echo$/)]);
    expect(docs.calls.slice(callsBefore)).toEqual(['echo']);
    expect(events.at(-1), result.describe()).toMatchObject({ type: 'result', status: 'success' });
  });
});
