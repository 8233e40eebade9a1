import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../helpers/admin.js';
import { startFakeMcpUpstream, type FakeMcpUpstream } from '../helpers/mcp-upstream.js';
import { bin, jsonLines, makeSandbox, runCli, type Sandbox } from './cli.js';
import { MODELS, startAgentGateway, type AgentGateway } from './gateway.js';

/**
 * Codex (`codex exec`) with the gateway's `/mcp` as an MCP server (issue 31), configured as
 * docs/mcp.md says: `[mcp_servers.gateway]` with `url` and `bearer_token_env_var`. The model's
 * tool list (read back from the request log) holds exactly the key's tools; one is called and the
 * upstream runs it.
 */
const config = (gateway: AgentGateway): string => `
model = "${MODELS.openai}"
model_provider = "gateway"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false

[model_providers.gateway]
name = "Model Gateway"
base_url = "${gateway.url}/v1"
env_key = "GATEWAY_API_KEY"
wire_api = "responses"

[mcp_servers.gateway]
url = "${gateway.url}/mcp"
bearer_token_env_var = "GATEWAY_MCP_KEY"
# exec runs with approval_policy never: the gateway's tools are approved up front.
default_tools_approval_mode = "approve"

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
apps = false
`;

describe('Codex with the MCP gateway', () => {
  let gateway: AgentGateway;
  let sandbox: Sandbox;
  let docs: FakeMcpUpstream;

  beforeAll(async () => {
    docs = await startFakeMcpUpstream({ name: 'docs' });
    gateway = await startAgentGateway('defaults', { mcp_servers: [{ name: 'docs', url: docs.url }] });
    sandbox = makeSandbox('codex-mcp');
    mkdirSync(join(sandbox.home, '.codex'));
    writeFileSync(join(sandbox.home, '.codex', 'config.toml'), config(gateway));
  });
  afterAll(async () => {
    await gateway?.stop();
    sandbox?.remove();
    await docs?.close();
  });

  it("sees exactly its key's tools and calls one", async () => {
    const key = await createKey(gateway, { name: 'codex-mcp', mcp: { docs: ['echo', 'count'] } });
    const callsBefore = docs.calls.length;
    const mark = gateway.mark();
    const result = await runCli(bin('codex'), ['exec', '--skip-git-repo-check', '--json', 'Call the tool mcp__gateway__docs__echo once, then say what it answered.'], {
      cwd: sandbox.work,
      env: { ...sandbox.env, CODEX_HOME: join(sandbox.home, '.codex'), GATEWAY_API_KEY: gateway.key, GATEWAY_MCP_KEY: key.key },
    });
    const calls = await gateway.expectCleanRun(mark, 'codex mcp');
    expect(result.code, result.describe()).toBe(0);
    // The gateway's tools as Codex offered them to the model.
    const offered = [...new Set(calls[0]!.requestBody.match(/\w*docs__\w+/g) ?? [])].sort();
    expect(offered, result.describe()).toEqual(expect.arrayContaining([expect.stringMatching(/docs__count$/), expect.stringMatching(/docs__echo$/)]));
    expect(offered.filter((name) => /docs__(fail|whoami|add_tool)/.test(name))).toEqual([]);
    const items = jsonLines(result.stdout).filter((e) => e.type === 'item.completed' && e.item?.type === 'mcp_tool_call');
    expect(items.length, result.describe()).toBe(1);
    expect(items[0].item, result.describe()).toMatchObject({ server: 'gateway', tool: 'docs__echo', status: 'completed' });
    expect(JSON.stringify(items[0].item.result)).toContain('docs: ');
    expect(docs.calls.slice(callsBefore)).toEqual(['echo']);
  });
});
