import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { admin, createKey } from '../helpers/admin.js';
import { startFakeMcpUpstream, type FakeMcpUpstream } from '../helpers/mcp-upstream.js';

const UPSTREAM_TOKEN = 'upstream-secret-token-9f8e7d6c';

async function connect(gateway: { url: string }, secret: string, path = '/mcp', sessionId?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), {
    requestInit: { headers: { authorization: `Bearer ${secret}` } },
    ...(sessionId ? { sessionId } : {}),
  });
  const client = new Client({ name: 'test-client', version: '1' });
  await client.connect(transport);
  return { client, transport };
}

/** Issue 31: the SDK client against the gateway, the gateway against SDK-built upstreams on loopback. */
describe('MCP gateway over Streamable HTTP', () => {
  let gateway: TestGateway;
  let docs: FakeMcpUpstream;
  let tickets: FakeMcpUpstream;
  let full: { id: string; key: string };
  let echoOnly: { id: string; key: string };
  let none: { id: string; key: string };

  beforeAll(async () => {
    docs = await startFakeMcpUpstream({ name: 'docs', bearer: UPSTREAM_TOKEN });
    tickets = await startFakeMcpUpstream({ name: 'tickets' });
    // tickets comes from the configuration file, docs through the admin API.
    gateway = await startTestGateway({ file: { request_log: { bodies: true }, mcp_servers: [{ name: 'tickets', url: tickets.url, tools: ['echo', 'count', 'fail'] }] } as never });
    expect((await admin(gateway, 'POST', '/mcp-servers', { name: 'docs', url: docs.url, auth: { type: 'bearer', token: UPSTREAM_TOKEN } })).status).toBe(201);
    full = await createKey(gateway, { name: 'full', mcp: { docs: null, tickets: null } });
    echoOnly = await createKey(gateway, { name: 'echo-only', mcp: { docs: ['echo'] } });
    none = await createKey(gateway, { name: 'none' });
  });
  afterAll(async () => {
    await gateway?.stop();
    await docs?.close();
    await tickets?.close();
  });

  it('admin API never shows the upstream credential, only its kind', async () => {
    const listed = await admin(gateway, 'GET', '/mcp-servers');
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain(UPSTREAM_TOKEN);
    expect(listed.json.data.find((s: { name: string }) => s.name === 'docs').auth).toEqual({ type: 'bearer' });
    const row = await gateway.deps.db.selectFrom('mcp_servers').selectAll().where('name', '=', 'docs').executeTakeFirstOrThrow();
    expect(row.secrets).not.toContain(UPSTREAM_TOKEN);
    expect(row.definition).not.toContain(UPSTREAM_TOKEN);
    const bad = await admin(gateway, 'POST', '/mcp-servers', { name: 'bad_name', url: docs.url });
    expect(bad.status).toBe(400);
    expect(listed.json.data.find((s: { name: string }) => s.name === 'tickets').origin).toBe('file');
    expect((await admin(gateway, 'DELETE', '/mcp-servers/tickets')).status).toBe(409);
    expect((await admin(gateway, 'POST', '/mcp-servers', { name: 'docs', url: docs.url })).status).toBe(409);
  });

  it('lists exactly the tools of the key, namespaced on /mcp, and calls them', async () => {
    const { client } = await connect(gateway, full.key);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    // tickets publishes echo, count and fail only (its allow-list): whoami stays hidden.
    expect(names).toEqual(['docs__add_tool', 'docs__count', 'docs__echo', 'docs__fail', 'docs__whoami', 'tickets__count', 'tickets__echo', 'tickets__fail']);
    const answer = await client.callTool({ name: 'docs__echo', arguments: { text: 'hello' } });
    expect(answer.content).toEqual([{ type: 'text', text: 'docs: hello' }]);
    await client.close();

    const narrow = await connect(gateway, echoOnly.key);
    expect((await narrow.client.listTools()).tools.map((t) => t.name)).toEqual(['docs__echo']);
    const callsBefore = docs.calls.length;
    await expect(narrow.client.callTool({ name: 'docs__fail', arguments: {} })).rejects.toThrow(/docs__fail/);
    await expect(narrow.client.callTool({ name: 'tickets__echo', arguments: { text: 'x' } })).rejects.toThrow(/not available/);
    expect(docs.calls.length).toBe(callsBefore);
    await narrow.client.close();
  });

  it('the GET stream relays tools/list_changed from the upstream and ends with the session', async () => {
    const streams = () => docs.openStreams + tickets.openStreams;
    await vi.waitFor(() => expect(streams()).toBe(0), { timeout: 5_000 });
    const { client, transport } = await connect(gateway, full.key);
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    // The SDK client opens its GET stream after initialize; the gateway listens on both upstream sessions.
    await vi.waitFor(() => expect(streams()).toBe(2), { timeout: 5_000 });
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('docs__extra');
    await client.callTool({ name: 'docs__add_tool', arguments: {} });
    await vi.waitFor(() => expect(changed).toBe(1), { timeout: 5_000 });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('docs__extra');
    // DELETE ends the session: the client's stream and the gateway's upstream streams close.
    await transport.terminateSession();
    await vi.waitFor(() => expect(streams()).toBe(0), { timeout: 5_000 });
    await client.close();
  });

  it('the GET stream: a raw client gets headers at once, and the stream ends when it goes', async () => {
    const { client, transport } = await connect(gateway, full.key);
    const sessionId = transport.sessionId!;
    await client.close();
    await vi.waitFor(() => expect(docs.openStreams + tickets.openStreams).toBe(0), { timeout: 5_000 });
    const headers = { authorization: `Bearer ${full.key}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    expect((await fetch(`${gateway.url}/mcp`, { headers: { ...headers, accept: 'application/json' } })).status).toBe(406);
    expect((await fetch(`${gateway.url}/mcp`, { headers: { authorization: headers.authorization, accept: 'text/event-stream' } })).status).toBe(400);
    const aborted = new AbortController();
    const stream = await fetch(`${gateway.url}/mcp`, { headers: { ...headers, accept: 'text/event-stream' }, signal: aborted.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    await vi.waitFor(() => expect(docs.openStreams + tickets.openStreams).toBe(2), { timeout: 5_000 });
    // A second GET of the same session replaces the first, which ends (no stream left hanging).
    const second = await fetch(`${gateway.url}/mcp`, { headers: { ...headers, accept: 'text/event-stream' } });
    expect(second.status).toBe(200);
    expect(await stream.text()).toMatch(/^: stream open/);
    aborted.abort();
    await second.body!.cancel();
    await vi.waitFor(() => expect(docs.openStreams + tickets.openStreams).toBe(0), { timeout: 5_000 });
  });

  it('a tool error comes back as isError; progress is relayed', async () => {
    const { client } = await connect(gateway, full.key);
    const failed = await client.callTool({ name: 'tickets__fail', arguments: {} });
    expect(failed.isError).toBe(true);
    const progress: number[] = [];
    const counted = await client.callTool({ name: 'tickets__count', arguments: { n: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(counted.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
    expect(progress).toEqual([1, 2, 3]);
    await client.close();
  });

  it('one server unprefixed on /mcp/{server}, with its resources', async () => {
    const { client } = await connect(gateway, full.key, '/mcp/docs');
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['add_tool', 'count', 'echo', 'fail', 'whoami']);
    const read = await client.readResource({ uri: 'file:///readme.txt' });
    expect(read.contents[0]).toMatchObject({ text: 'readme of docs' });
    await client.close();
  });

  it('the gateway key never reaches the upstream, the upstream credential never reaches the client', async () => {
    const { client } = await connect(gateway, full.key);
    const who = await client.callTool({ name: 'docs__whoami', arguments: {} });
    // The upstream got its own credential (it answers 401 otherwise) and echoed it: the gateway masks it.
    expect(who.content).toEqual([{ type: 'text', text: 'Bearer [redacted]' }]);
    for (const headers of [...docs.seen, ...tickets.seen]) expect(JSON.stringify(headers)).not.toContain(full.key);
    await client.close();
    // An upstream that refuses the gateway: a clear JSON-RPC error, no credential in it.
    expect((await admin(gateway, 'PATCH', '/mcp-servers/docs', { auth: { type: 'bearer', token: 'wrong-token-abcdef' } })).status).toBe(200);
    const again = await connect(gateway, full.key);
    const error = await again.client.callTool({ name: 'docs__echo', arguments: { text: 'x' } }).catch((e: Error) => e);
    expect(String(error)).toMatch(/refused the gateway's credentials/);
    expect(String(error)).not.toContain('wrong-token-abcdef');
    expect(String(error)).not.toContain(docs.url);
    await again.client.close();
    expect((await admin(gateway, 'PATCH', '/mcp-servers/docs', { auth: { type: 'bearer', token: UPSTREAM_TOKEN } })).status).toBe(200);
  });

  it('a key without the permission is refused with 403; no key with 401', async () => {
    await expect(connect(gateway, none.key)).rejects.toThrow(/may use no MCP server/);
    await expect(connect(gateway, echoOnly.key, '/mcp/tickets')).rejects.toThrow(/may not use the MCP server 'tickets'/);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const refused = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${none.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(initialize) });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32000);
    // A 2026-07-28 client's probe (Claude Code 2.1 sends one first) is told to initialize instead.
    const probe = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${full.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' }, body: JSON.stringify({ jsonrpc: '2.0', id: 'probe-1', method: 'server/discover', params: {} }) });
    expect(probe.status).toBe(200);
    expect(await probe.json()).toMatchObject({ jsonrpc: '2.0', id: 'probe-1', error: { code: -32601 } });
    const noKey = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { jsonrpc: string }).jsonrpc).toBe('2.0');
  });

  it('a revoked permission takes effect on the next call', async () => {
    const key = await createKey(gateway, { name: 'shrinking', mcp: { docs: null } });
    const { client } = await connect(gateway, key.key);
    expect((await client.callTool({ name: 'docs__echo', arguments: { text: 'a' } })).isError).toBeFalsy();
    expect((await admin(gateway, 'PATCH', `/keys/${key.id}`, { mcp: { docs: ['whoami'] } })).status).toBe(200);
    await expect(client.callTool({ name: 'docs__echo', arguments: { text: 'b' } })).rejects.toThrow(/not available/);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['docs__whoami']);
    await client.close();
  });

  it('sessions: unknown ids are 404, DELETE ends one, the upstream session is reused', async () => {
    const { client, transport } = await connect(gateway, full.key);
    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^mcps_/);
    await client.callTool({ name: 'docs__echo', arguments: { text: '1' } });
    const inits = docs.initializations;
    const resumed = await connect(gateway, full.key, '/mcp', sessionId);
    await resumed.client.callTool({ name: 'docs__echo', arguments: { text: '2' } });
    expect(docs.initializations).toBe(inits);
    await resumed.transport.terminateSession();
    const gone = await fetch(`${gateway.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${full.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(gone.status).toBe(404);
    const get = await fetch(`${gateway.url}/mcp`, { headers: { authorization: `Bearer ${full.key}`, accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    expect(get.status).toBe(404);
  });

  it('every tool call is in the request log, family mcp', async () => {
    await gateway.deps.usage.flush();
    await gateway.deps.requestLog.flush();
    const rows = await gateway.deps.db.selectFrom('usage_events').selectAll().where('family', '=', 'mcp').execute();
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(rows.some((row) => row.model === 'docs__echo' && row.channel === 'docs' && row.outcome === 'success')).toBe(true);
    expect(rows.some((row) => row.model === 'tickets__fail' && row.outcome === 'tool_error')).toBe(true);
    expect(rows.some((row) => row.model === 'docs__fail' && row.status === 403)).toBe(true);
    const details = await gateway.deps.db.selectFrom('request_details').selectAll().execute();
    for (const detail of details) expect(JSON.stringify(detail)).not.toContain(UPSTREAM_TOKEN);
  });

  it('rpm counts tool calls', async () => {
    const limited = await createKey(gateway, { name: 'limited', rpm: 2, mcp: { tickets: null } });
    const { client } = await connect(gateway, limited.key);
    await client.callTool({ name: 'tickets__echo', arguments: { text: '1' } });
    await client.callTool({ name: 'tickets__echo', arguments: { text: '2' } });
    await expect(client.callTool({ name: 'tickets__echo', arguments: { text: '3' } })).rejects.toThrow(/Rate limit/);
    await client.close();
  });
});
