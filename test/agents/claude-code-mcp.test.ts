import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../helpers/admin.js';
import { startFakeMcpUpstream, type FakeMcpUpstream } from '../helpers/mcp-upstream.js';
import { bin, claudeEnv, jsonLines, makeSandbox, runCli, type Sandbox } from './cli.js';
import { MODELS, startAgentGateway, type AgentGateway } from './gateway.js';

/**
 * Claude Code, non-interactive, with the gateway's `/mcp` as its MCP server (issue 31), set up as
 * docs/mcp.md says: an http server in `--mcp-config` with a gateway key as the bearer, the tool
 * allowed by `--allowedTools`. Two keys with different grants: each run sees exactly its key's
 * tools (`mcp__gateway__<server>__<tool>`) and calls one; the upstream runs it.
 */

const UPSTREAM_TOKEN = 'claude-code-mcp-upstream-token-5b1c';
/** Nothing but the MCP tools and Read: the other tools change the machine or reach the network. */
const DISALLOWED = ['Bash', 'Write', 'Edit', 'NotebookEdit', 'WebFetch', 'WebSearch'];

describe('Claude Code with the MCP gateway', () => {
  let gateway: AgentGateway;
  let sandbox: Sandbox;
  let docs: FakeMcpUpstream;
  let tickets: FakeMcpUpstream;

  beforeAll(async () => {
    docs = await startFakeMcpUpstream({ name: 'docs', bearer: UPSTREAM_TOKEN });
    tickets = await startFakeMcpUpstream({ name: 'tickets' });
    gateway = await startAgentGateway('defaults', {
      mcp_servers: [
        { name: 'docs', url: docs.url, auth: { type: 'bearer', token: UPSTREAM_TOKEN } },
        { name: 'tickets', url: tickets.url },
      ],
    });
    sandbox = makeSandbox('claude-code-mcp');
    writeFileSync(join(sandbox.home, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
  });
  afterAll(async () => {
    await gateway?.stop();
    sandbox?.remove();
    await docs?.close();
    await tickets?.close();
  });

  /** One run with the gateway's /mcp under the name `gateway`, authenticated with `mcpKey`. */
  const claude = (mcpKey: string, prompt: string, allowed: string) => {
    const config = join(sandbox.work, 'gateway-mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { gateway: { type: 'http', url: `${gateway.url}/mcp`, headers: { Authorization: `Bearer ${mcpKey}` } } } }));
    return runCli(
      bin('claude'),
      ['-p', prompt, '--mcp-config', config, '--strict-mcp-config', '--allowedTools', allowed, '--disallowedTools', ...DISALLOWED, '--output-format', 'stream-json', '--verbose'],
      {
        cwd: sandbox.work,
        env: {
          ...claudeEnv(sandbox, gateway, MODELS.anthropic),
          // The MCP tools in the model's tool list itself, not behind a search tool.
          ENABLE_TOOL_SEARCH: 'false',
        },
      },
    );
  };

  /** The gateway's tools as the run's init event lists them. */
  const gatewayTools = (events: any[]): string[] =>
    ((events.find((e) => e.type === 'system' && e.subtype === 'init')?.tools ?? []) as string[]).filter((name) => name.startsWith('mcp__gateway__')).sort();

  it.each([
    { grant: { docs: ['echo'] }, sees: ['mcp__gateway__docs__echo'], calls: 'mcp__gateway__docs__echo', upstream: () => docs },
    { grant: { docs: ['whoami'], tickets: ['echo', 'count'] }, sees: ['mcp__gateway__docs__whoami', 'mcp__gateway__tickets__count', 'mcp__gateway__tickets__echo'], calls: 'mcp__gateway__tickets__echo', upstream: () => tickets },
  ])('sees exactly its key\'s tools and calls $calls', async ({ grant, sees, calls, upstream }) => {
    const key = await createKey(gateway, { name: `claude-mcp-${calls}`, mcp: grant });
    const callsBefore = upstream().calls.length;
    const mark = gateway.mark();
    const result = await claude(key.key, `Call the tool ${calls} once, then say what it answered.`, calls);
    await gateway.expectCleanRun(mark, `claude-code mcp ${calls}`);
    expect(result.code, result.describe()).toBe(0);
    const events = jsonLines(result.stdout);
    expect(events.find((e) => e.type === 'system' && e.subtype === 'init')?.mcp_servers, result.describe()).toEqual([expect.objectContaining({ name: 'gateway', status: 'connected' })]);
    expect(gatewayTools(events), result.describe()).toEqual(sees);
    // The tool ran upstream, and its answer came back to the model in the run.
    expect(upstream().calls.slice(callsBefore)).toEqual(['echo']);
    const toolResults = events.filter((e) => e.type === 'user').flatMap((e) => e.message?.content ?? []).filter((c: any) => c.type === 'tool_result');
    expect(JSON.stringify(toolResults), result.describe()).toContain(`${calls.split('__')[2]}: `);
    expect(events.at(-1), result.describe()).toMatchObject({ type: 'result', subtype: 'success', is_error: false });
    // The gateway key went to the gateway only.
    for (const headers of [...docs.seen, ...tickets.seen]) expect(JSON.stringify(headers)).not.toContain(key.key);
  });
});
