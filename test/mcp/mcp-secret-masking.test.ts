import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { admin, createKey } from '../helpers/admin.js';

/** Secrets with a quote and a backslash: JSON text carries them as `\"` and `\\`. */
const CLIENT_SECRET = 'cs-"quo\\te-7Hq2Lm';
const EXTRA_SECRET = 'ex"tra\\sec-Jk82Pw';
const BEARER_SECRET = 'be"ar\\er-Zq93Xv';
/** A long token, as identity services issue them (a JWT): the masker searches those as strings. */
const accessToken = (n: number) => `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(`{"sub":"gateway","n":${n},"pad":"${'p'.repeat(150)}"}`).toString('base64url')}.sig-${n}-Xw7`;

/** Every form of a secret an upstream could echo: raw, JSON-escaped once and twice, URL-encoded, base64 alone and inside `Basic`. */
function formsOf(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = [secret, json, JSON.stringify(json).slice(1, -1), encodeURIComponent(secret), new URLSearchParams({ v: secret }).toString().slice(2)];
  // The base64 of the secret at each byte alignment, cut to what depends on the secret alone.
  for (let offset = 0; offset < 3; offset++) {
    const bytes = Buffer.concat([Buffer.alloc(offset), Buffer.from(secret)]);
    const core = bytes.toString('base64').slice(Math.ceil((offset * 8) / 6), Math.floor((bytes.length * 8) / 6));
    forms.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return forms;
}

/** The request's credential headers, echoed in every encoding. */
function echo(headers: IncomingHttpHeaders): string {
  const values = Object.entries(headers)
    .filter(([name]) => name === 'authorization' || name.startsWith('x-'))
    .map(([, value]) => String(value));
  const lines = [JSON.stringify(headers)];
  for (const value of values) {
    lines.push(value, JSON.stringify({ value }), JSON.stringify(JSON.stringify({ value })), encodeURIComponent(value), new URLSearchParams({ value }).toString());
    lines.push(Buffer.from(value).toString('base64'), `Basic ${Buffer.from(`user:${value}`).toString('base64')}`, Buffer.from(`ab${value}`).toString('base64url'));
  }
  return lines.join('\n');
}

interface HostileServer {
  url: string;
  tokensIssued: string[];
  /** Tokens it refuses from now on (HTTP 401), as a revoked token is. */
  revoked: Set<string>;
  close(): Promise<void>;
}

/**
 * A hostile MCP server (issue 44): a stateless JSON-RPC endpoint that echoes the headers it got
 * in tool results, a tool's progress, a JSON-RPC error, resources/read and prompts/get, with an
 * OAuth client-credentials token endpoint of its own at /token.
 */
async function startHostileServer(): Promise<HostileServer> {
  const state: HostileServer = { url: '', tokensIssued: [], revoked: new Set(), close: async () => undefined };
  const http: HttpServer = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (req.url === '/token') {
      const form = new URLSearchParams(raw);
      if (form.get('client_secret') !== CLIENT_SECRET) return void res.writeHead(401).end();
      const token = accessToken(state.tokensIssued.length + 1);
      state.tokensIssued.push(token);
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
    }
    if (req.method !== 'POST') return void res.writeHead(405).end();
    if (state.revoked.has(String(req.headers.authorization).replace(/^Bearer /, ''))) return void res.writeHead(401).end();
    const message = JSON.parse(raw) as { id?: number; method: string; params?: { name?: string; protocolVersion?: string; _meta?: { progressToken?: string | number } } };
    if (message.id === undefined) return void res.writeHead(202).end();
    const text = echo(req.headers);
    const answer = (body: Record<string, unknown>) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...body }));
    switch (message.method) {
      case 'initialize':
        return answer({ result: { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {}, resources: {}, prompts: {} }, serverInfo: { name: 'hostile', version: '1' } } });
      case 'tools/list':
        return answer({ result: { tools: [{ name: 'echo_headers', inputSchema: { type: 'object' } }, { name: 'fail_with_headers', inputSchema: { type: 'object' } }] } });
      case 'tools/call': {
        if (message.params?.name === 'fail_with_headers') return answer({ error: { code: -32602, message: `bad call, I was sent ${text}` } });
        const result = { content: [{ type: 'text', text }], structuredContent: { headers: req.headers, [String(req.headers.authorization)]: 'as a key' } };
        const progressToken = message.params?._meta?.progressToken;
        if (progressToken === undefined) return answer({ result });
        // With a progress token: an SSE answer, its progress message echoing too.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: 1, total: 1, message: text } })}\n\n`);
        return void res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n\n`);
      }
      case 'resources/list':
        return answer({ result: { resources: [{ uri: 'file:///headers.txt', name: 'headers' }] } });
      case 'resources/read':
        return answer({ result: { contents: [{ uri: 'file:///headers.txt', mimeType: 'text/plain', text }] } });
      case 'prompts/list':
        return answer({ result: { prompts: [{ name: 'headers' }] } });
      case 'prompts/get':
        return answer({ result: { description: text, messages: [{ role: 'user', content: { type: 'text', text } }] } });
      default:
        return answer({ error: { code: -32601, message: 'Method not found' } });
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  state.close = async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}

async function connect(gateway: { url: string }, key: string, path: string) {
  const client = new Client({ name: 'test-client', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}${path}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

describe('no upstream secret reaches an MCP client or the request log, in any encoding (issue 44)', () => {
  let gateway: TestGateway;
  let hostile: HostileServer;
  let key: string;
  const secrets = () => [...hostile.tokensIssued, CLIENT_SECRET, EXTRA_SECRET, BEARER_SECRET];
  const expectNoSecret = (seen: string) => {
    for (const secret of secrets()) for (const form of formsOf(secret)) expect(seen, `a form of ${secret.slice(0, 12)}…: ${form}`).not.toContain(form);
  };

  beforeAll(async () => {
    hostile = await startHostileServer();
    gateway = await startTestGateway({
      file: {
        request_log: { bodies: true, max_body_chars: 1_000_000 },
        mcp_servers: [
          {
            name: 'oauth',
            url: `${hostile.url}/mcp`,
            headers: { 'X-Extra-Secret': EXTRA_SECRET, 'X-Plain': 'plain-value' },
            auth: { type: 'oauth_client_credentials', token_url: `${hostile.url}/token`, client_id: 'gateway', client_secret: CLIENT_SECRET },
          },
          { name: 'bearer', url: `${hostile.url}/mcp`, auth: { type: 'bearer', token: BEARER_SECRET } },
        ],
      } as never,
    });
    key = (await createKey(gateway, { name: 'holder', mcp: { oauth: null, bearer: null } })).key;
  });
  afterAll(async () => {
    await gateway?.stop();
    await hostile?.close();
  });

  it('tools/call results, progress and errors are masked; the call still works', async () => {
    const client = await connect(gateway, key, '/mcp');
    for (const server of ['oauth', 'bearer']) {
      const progress: string[] = [];
      const result = await client.callTool({ name: `${server}__echo_headers`, arguments: {} }, undefined, { onprogress: (p) => progress.push(JSON.stringify(p)) });
      const seen = JSON.stringify(result);
      expect(progress.length).toBe(1);
      expectNoSecret(seen + progress.join('\n'));
      // The upstream answered (the credentials it needs reached it) and what is not secret passes.
      expect(seen).toContain('[redacted]');
      expect(seen).toContain('mcp-protocol-version');
      const error = await client.callTool({ name: `${server}__fail_with_headers`, arguments: {} }).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect(String((error as Error).message)).toMatch(/bad call, I was sent/);
      expectNoSecret(String((error as Error).message));
    }
    expect(hostile.tokensIssued.length).toBe(1);
    await client.close();
  });

  it('resources/read and prompts/get on /mcp/{server} are masked', async () => {
    for (const server of ['oauth', 'bearer']) {
      const client = await connect(gateway, key, `/mcp/${server}`);
      const read = await client.readResource({ uri: 'file:///headers.txt' });
      const prompt = await client.getPrompt({ name: 'headers' });
      expectNoSecret(JSON.stringify(read) + JSON.stringify(prompt));
      expect(JSON.stringify(read)).toContain('[redacted]');
      await client.close();
    }
  });

  it('the request log detail bodies and error messages of MCP calls hold no form of a secret', async () => {
    const client = await connect(gateway, key, '/mcp');
    for (const server of ['oauth', 'bearer']) {
      await client.callTool({ name: `${server}__echo_headers`, arguments: {} });
      await client.callTool({ name: `${server}__fail_with_headers`, arguments: {} }).catch(() => undefined);
    }
    await client.close();
    const list = await admin(gateway, 'GET', '/requests?family=mcp&limit=50');
    expect(list.status).toBe(200);
    const ids = (list.json.data as Array<{ id: string }>).map((row) => row.id);
    expect(ids.length).toBeGreaterThanOrEqual(4);
    let details = '';
    for (const id of ids) {
      const detail = await admin(gateway, 'GET', `/requests/${id}`);
      expect(detail.status).toBe(200);
      details += detail.text;
    }
    expectNoSecret(details);
    expect(details).toContain('[redacted]');
  });

  it('a re-minted OAuth token is masked too', async () => {
    // The upstream revokes the token: the next upstream request fails and the gateway forgets it
    // (opening the session on initialize, or the call), then mints anew.
    for (const token of hostile.tokensIssued) hostile.revoked.add(token);
    const client = await connect(gateway, key, '/mcp/oauth');
    const call = () => client.callTool({ name: 'echo_headers', arguments: {} });
    const seen = JSON.stringify(await call().catch(call));
    expect(hostile.tokensIssued.length).toBeGreaterThanOrEqual(2);
    expectNoSecret(seen);
    await client.close();
  });
});
