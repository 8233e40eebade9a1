import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { admin, createKey } from '../helpers/admin.js';
import { createTestDatabase, TEST_REDIS_URL, type TestDatabase } from '../helpers/services.js';
import { startFakeMcpUpstream, type FakeMcpUpstream } from '../helpers/mcp-upstream.js';

const UPSTREAM_TOKEN = 'two-instance-upstream-token-42';

async function connect(gateway: { url: string }, secret: string, sessionId?: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } }, ...(sessionId ? { sessionId } : {}) });
  const client = new Client({ name: 'test-client', version: '1' });
  await client.connect(transport);
  return { client, transport };
}

/** Issue 31: two instances on one PostgreSQL (and Redis) serve one MCP session. */
describe('MCP sessions across instances', () => {
  let database: TestDatabase;
  let dataDir: string;
  let a: TestGateway;
  let b: TestGateway;
  let upstream: FakeMcpUpstream;
  beforeAll(async () => {
    database = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-mcp-shared-'));
    upstream = await startFakeMcpUpstream({ name: 'docs', bearer: UPSTREAM_TOKEN });
    const env = { databaseUrl: database.url, redisUrl: TEST_REDIS_URL, secretKey: randomBytes(32).toString('base64') };
    [a, b] = await Promise.all([startTestGateway({ dataDir, env }), startTestGateway({ dataDir, env })]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop({ keepData: true }), b?.stop({ keepData: true })]);
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
    await upstream?.close();
  });

  it('a server published on one instance, a session started there, continued on the other', async () => {
    expect((await admin(a, 'POST', '/mcp-servers', { name: 'docs', url: upstream.url, auth: { type: 'bearer', token: UPSTREAM_TOKEN } })).status).toBe(201);
    const key = await createKey(a, { name: 'mcp', mcp: { docs: ['echo'] } });
    const onA = await connect(a, key.key);
    expect((await onA.client.callTool({ name: 'docs__echo', arguments: { text: 'from a' } })).content).toEqual([{ type: 'text', text: 'docs: from a' }]);
    const sessionId = onA.transport.sessionId!;
    const initializations = upstream.initializations;

    // The same session on instance b: no new initialize, upstream session reused.
    const onB = await connect(b, key.key, sessionId);
    expect((await onB.client.listTools()).tools.map((t) => t.name)).toEqual(['docs__echo']);
    expect((await onB.client.callTool({ name: 'docs__echo', arguments: { text: 'from b' } })).content).toEqual([{ type: 'text', text: 'docs: from b' }]);
    expect(upstream.initializations).toBe(initializations);

    // A permission taken away on a is refused at the next call on both instances, and listed on neither.
    const callsBefore = upstream.calls.length;
    expect((await admin(a, 'PATCH', `/keys/${key.id}`, { mcp: { docs: ['count'] } })).status).toBe(200);
    await expect(onB.client.callTool({ name: 'docs__echo', arguments: { text: 'x' } })).rejects.toThrow(/not available/);
    await expect(onA.client.callTool({ name: 'docs__echo', arguments: { text: 'x' } })).rejects.toThrow(/not available/);
    expect((await onA.client.listTools()).tools.map((t) => t.name)).toEqual(['docs__count']);
    expect((await onB.client.listTools()).tools.map((t) => t.name)).toEqual(['docs__count']);
    expect(upstream.calls.length).toBe(callsBefore);

    // A GET stream on b ends when the session is deleted on a (a ends the upstream session, whose stream b listens on).
    await onA.client.close();
    await onB.client.close();
    await vi.waitFor(() => expect(upstream.openStreams).toBe(0), { timeout: 5_000 });
    const headers = { authorization: `Bearer ${key.key}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const stream = await fetch(`${b.url}/mcp`, { headers: { ...headers, accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    await vi.waitFor(() => expect(upstream.openStreams).toBe(1), { timeout: 5_000 });
    expect((await fetch(`${a.url}/mcp`, { method: 'DELETE', headers })).status).toBe(200);
    expect(await stream.text()).toMatch(/^: stream open/);
    await vi.waitFor(() => expect(upstream.openStreams).toBe(0), { timeout: 5_000 });

    // Ended: b answers 404 for it too.
    const gone = await fetch(`${b.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(gone.status).toBe(404);
  });
});
