import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_TIMEOUTS } from '../../src/gateway/channel.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { admin, createKey } from '../helpers/admin.js';
import { HOSTILE_TOOL_NAMES, startHostileMcpUpstream, type HostileMcpUpstream } from '../helpers/hostile-mcp-upstream.js';

const MAX_RESULT_BYTES = 256 * 1024;
const SESSIONS_PER_KEY = 3;
const IDLE_MS = 3_000;

async function connect(gateway: { url: string }, secret: string, path = '/mcp') {
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } });
  const client = new Client({ name: 'test-client', version: '1' });
  await client.connect(transport);
  return { client, transport };
}

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

/** One raw JSON-RPC POST (a client that ignores what the SDK would do for it). */
const post = (gateway: { url: string }, secret: string, path: string, body: unknown, sessionId?: string) =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) },
    body: JSON.stringify(body),
  });

/** Issue 44: a hostile upstream MCP server and key holders probing the gateway's bounds. */
describe('MCP gateway against a hostile upstream', () => {
  let gateway: TestGateway;
  let hostile: HostileMcpUpstream;

  beforeAll(async () => {
    hostile = await startHostileMcpUpstream();
    gateway = await startTestGateway({
      file: { mcp_servers: [{ name: 'hostile', url: hostile.url, max_result_bytes: MAX_RESULT_BYTES }] } as never,
      env: { mcpSessionsPerKey: SESSIONS_PER_KEY, mcpSessionIdleMs: IDLE_MS },
    });
  });
  afterAll(async () => {
    await gateway?.stop();
    await hostile?.close();
  });

  it('a grant of no tools reaches nothing of the server: no initialize, resources or prompts', async () => {
    const empty = await createKey(gateway, { name: 'empty-grant', mcp: { hostile: [] } });
    const before = hostile.initializations;
    for (const path of ['/mcp/hostile', '/mcp']) {
      const refused = await post(gateway, empty.key, path, initialize);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32000);
    }
    expect(hostile.initializations).toBe(before);
    // A key granted one tool reads the server's resources and prompts.
    const one = await createKey(gateway, { name: 'one-tool', mcp: { hostile: ['echo'] } });
    const { client } = await connect(gateway, one.key, '/mcp/hostile');
    expect((await client.readResource({ uri: 'file:///secret.txt' })).contents[0]).toMatchObject({ text: 'the resource text' });
    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['greet']);
    // Its grant narrowed to nothing: the session's next read is refused before the upstream.
    expect((await admin(gateway, 'PATCH', `/keys/${one.id}`, { mcp: { hostile: [] } })).status).toBe(200);
    const reads = hostile.methods.filter((method) => method === 'resources/read').length;
    await expect(client.readResource({ uri: 'file:///secret.txt' })).rejects.toThrow(/may not use the MCP server 'hostile'/);
    await expect(client.getPrompt({ name: 'greet' })).rejects.toThrow(/may not use the MCP server 'hostile'/);
    expect(hostile.methods.filter((method) => method === 'resources/read').length).toBe(reads);
    await client.close();
  });

  it('tools named outside [A-Za-z0-9_.-] are neither listed nor called', async () => {
    const key = await createKey(gateway, { name: 'names', mcp: { hostile: null } });
    const aggregate = await connect(gateway, key.key);
    expect((await aggregate.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['hostile__echo', 'hostile__huge']);
    for (const name of HOSTILE_TOOL_NAMES) {
      await expect(aggregate.client.callTool({ name: `hostile__${name}`, arguments: {} })).rejects.toThrow(/not available/);
    }
    await aggregate.client.close();
    const single = await connect(gateway, key.key, '/mcp/hostile');
    expect((await single.client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['echo', 'huge']);
    await expect(single.client.callTool({ name: HOSTILE_TOOL_NAMES[0]!, arguments: {} })).rejects.toThrow(/not available/);
    await single.client.close();
    expect(hostile.methods).not.toContain('tools/call');
  });

  it('a result over max_result_bytes fails with -32013 and the upstream connection is closed', async () => {
    const key = await createKey(gateway, { name: 'huge', mcp: { hostile: null } });
    hostile.hugeBytes = 8 * 1024 * 1024;
    const { client } = await connect(gateway, key.key);
    const error = await client.callTool({ name: 'hostile__huge', arguments: {} }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32013);
    expect((error as McpError).message).toMatch(/larger than 262144 bytes/);
    // The gateway hung up long before the upstream could write it all.
    await vi.waitFor(() => expect(hostile.huge.at(-1)?.cutOff).toBe(true), { timeout: 5_000 });
    expect(hostile.huge.at(-1)!.written).toBeLessThan(hostile.hugeBytes);
    // The same session goes on.
    expect((await client.callTool({ name: 'hostile__echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'called echo' }]);
    await client.close();
    // Upstream MCP calls went through the gateway's shared undici agent (its pools, connect timeout), not the global fetch's.
    expect(Object.keys(gateway.deps.upstream.agent(DEFAULT_TIMEOUTS.connectMs).stats)).toContain(new URL(hostile.url).origin);
    await gateway.deps.usage.flush();
    const row = await gateway.deps.db.selectFrom('usage_events').selectAll().where('family', '=', 'mcp').where('model', '=', 'hostile__huge').executeTakeFirstOrThrow();
    // Codes of the GW_* catalogue (GW_UPSTREAM_BAD_RESPONSE), not ad-hoc ones.
    expect(row).toMatchObject({ outcome: 'error', status: 502, error_code: 'upstream_bad_response' });
  });

  it('an upstream GET stream event over max_result_bytes ends that stream, connection closed', async () => {
    const key = await createKey(gateway, { name: 'huge-event', mcp: { hostile: null } });
    const opened = await post(gateway, key.key, '/mcp/hostile', initialize);
    const sessionId = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    hostile.hugeBytes = 8 * 1024 * 1024;
    hostile.hugeEventOnGet = true;
    const records = hostile.huge.length;
    try {
      const stream = await fetch(`${gateway.url}/mcp/hostile`, { headers: { authorization: `Bearer ${key.key}`, accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } });
      expect(stream.status).toBe(200);
      // The gateway stops reading past the bound and hangs up; the client's stream ends with it.
      await vi.waitFor(() => expect(hostile.huge[records]?.cutOff).toBe(true), { timeout: 5_000 });
      expect(hostile.huge[records]!.written).toBeLessThan(hostile.hugeBytes);
      expect(await stream.text()).toMatch(/^: stream open/);
    } finally {
      hostile.hugeEventOnGet = false;
    }
  });

  it('a key with max_parallel_requests 1 calls tools: the request holds its one slot (the admission gate)', async () => {
    const key = await createKey(gateway, { name: 'one-at-a-time', max_parallel_requests: 1, mcp: { hostile: ['echo'] } });
    const { client } = await connect(gateway, key.key);
    expect((await client.callTool({ name: 'hostile__echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'called echo' }]);
    expect((await client.callTool({ name: 'hostile__echo', arguments: {} })).isError).toBeFalsy();
    await client.close();
  });

  it('sessions per key are capped: the least recently used ends, and its upstream session is DELETEd', async () => {
    const key = await createKey(gateway, { name: 'many-sessions', mcp: { hostile: ['echo'] } });
    const ids: string[] = [];
    const liveBefore = hostile.live.size;
    for (let i = 0; i <= SESSIONS_PER_KEY; i++) {
      const opened = await post(gateway, key.key, '/mcp/hostile', initialize);
      expect(opened.status).toBe(200);
      ids.push(opened.headers.get('mcp-session-id')!);
      await opened.body?.cancel();
    }
    // The first is over the cap: gone here, and the upstream was told to end its session.
    expect((await post(gateway, key.key, '/mcp/hostile', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, ids[0])).status).toBe(404);
    for (const id of ids.slice(1)) expect((await post(gateway, key.key, '/mcp/hostile', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, id)).status).toBe(200);
    await vi.waitFor(() => expect(hostile.live.size - liveBefore).toBe(SESSIONS_PER_KEY), { timeout: 5_000 });
  });

  it('an idle session ends, and its upstream session with it', async () => {
    const key = await createKey(gateway, { name: 'idle', mcp: { hostile: ['echo'] } });
    const opened = await post(gateway, key.key, '/mcp/hostile', initialize);
    const id = opened.headers.get('mcp-session-id')!;
    await opened.body?.cancel();
    const row = await gateway.deps.db.selectFrom('mcp_sessions').select('upstreams').where('id', '=', id).executeTakeFirstOrThrow();
    const upstreamId = (JSON.parse(row.upstreams) as Record<string, { sessionId: string }>).hostile!.sessionId;
    expect(hostile.live.has(upstreamId)).toBe(true);
    // Nobody uses it: the sweep ends it and DELETEs its upstream session.
    await vi.waitFor(() => expect(hostile.deleted).toContain(upstreamId), { timeout: IDLE_MS * 5, interval: 200 });
    expect((await post(gateway, key.key, '/mcp/hostile', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, id)).status).toBe(404);
  });

  it("revoking a key, or removing its grant or the server, ends its open GET streams", async () => {
    expect((await admin(gateway, 'POST', '/mcp-servers', { name: 'runtime', url: hostile.url })).status).toBe(201);
    const ended = async (secret: string, path: string, revoke: () => Promise<unknown>) => {
      const opened = await post(gateway, secret, path, initialize);
      const sessionId = opened.headers.get('mcp-session-id')!;
      await opened.body?.cancel();
      const streams = hostile.openStreams;
      const stream = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${secret}`, accept: 'text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } });
      expect(stream.status).toBe(200);
      await vi.waitFor(() => expect(hostile.openStreams).toBe(streams + 1), { timeout: 5_000 });
      let over = false;
      void stream.text().then(() => (over = true), () => (over = true));
      await revoke();
      await vi.waitFor(() => expect(over).toBe(true), { timeout: 5_000 });
      await vi.waitFor(() => expect(hostile.openStreams).toBe(streams), { timeout: 5_000 });
    };
    const revoked = await createKey(gateway, { name: 'revoked', mcp: { hostile: null } });
    await ended(revoked.key, '/mcp', () => admin(gateway, 'DELETE', `/keys/${revoked.id}`));
    const narrowed = await createKey(gateway, { name: 'narrowed', mcp: { hostile: null } });
    await ended(narrowed.key, '/mcp/hostile', () => admin(gateway, 'PATCH', `/keys/${narrowed.id}`, { mcp: { runtime: null } }));
    const serverGone = await createKey(gateway, { name: 'server-gone', mcp: { runtime: null } });
    await ended(serverGone.key, '/mcp/runtime', () => admin(gateway, 'DELETE', '/mcp-servers/runtime'));
  });
});
