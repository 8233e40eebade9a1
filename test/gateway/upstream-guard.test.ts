import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startFakeVendor, type FakeVendor } from '../helpers/fake-vendor.js';
import { pollUntil } from '../helpers/video.js';
import { admin } from '../helpers/admin.js';
import { assertEnvelope } from '../helpers/envelopes.js';
import { createServer, type Server } from 'node:http';
import { Agent } from 'undici';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/load.js';
import { McpHealth } from '../../src/gateway/mcp/health.js';
import { McpUpstreamAuth } from '../../src/gateway/mcp/upstream-auth.js';
import { listenUpstream } from '../../src/gateway/mcp/upstream-listen.js';
import { fetchAccessToken } from '../../src/providers/minted-token.js';
import type { FileConfig } from '../../src/config/schema.js';
import { buildUpstreamGuard, linkLocalRefusal } from '../../src/gateway/upstream-guard.js';

/** Every spelling of a link-local or metadata address a URL may carry (issue 44), with the address the refusal names. */
const REFUSED: [url: string, named: string][] = [
  ['http://169.254.169.254/latest/meta-data', '169.254.169.254'],
  ['http://169.254.10.1:8000/v1', '169.254.10.1'],
  ['http://169.254.170.2/v2/credentials', '169.254.170.2'],
  ['http://user:pw@169.254.169.254:80/', '169.254.169.254'],
  // Decimal, hex, octal and short IPv4 forms, and a trailing dot: the WHATWG parser normalises them.
  ['http://2852039166/', '169.254.169.254'],
  ['http://0xA9FEA9FE/', '169.254.169.254'],
  ['http://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254'],
  ['http://0251.0376.0251.0376/', '169.254.169.254'],
  ['http://169.254.43518/', '169.254.169.254'],
  ['http://169.254.169.254./', '169.254.169.254'],
  // IPv6 link-local, any case, with a zone id (not WHATWG syntax, read from the authority as written).
  ['http://[fe80::1]/v1', 'fe80::1'],
  ['http://[FEBF::abcd]:8080/', 'febf::abcd'],
  ['http://[fe80::1%25eth0]/', 'fe80::1'],
  ['http://[FE80::1%eth0]:8080/v1', 'fe80::1'],
  ['http://[::ffff:169.254.169.254%25eth0]/', '169.254.169.254'],
  // IPv4 inside IPv6: mapped, compatible, translated, NAT64 (well-known and local-use), 6to4.
  ['http://[::ffff:169.254.169.254]/', '169.254.169.254'],
  ['http://[::ffff:a9fe:a9fe]/', '169.254.169.254'],
  ['http://[::169.254.169.254]/', '169.254.169.254'],
  ['http://[::ffff:0:169.254.169.254]/', '169.254.169.254'],
  ['http://[64:ff9b::a9fe:a9fe]/', '169.254.169.254'],
  ['http://[64:ff9b::169.254.169.254]/', '169.254.169.254'],
  ['http://[64:ff9b:1::a9fe:a9fe]/', '169.254.169.254'],
  ['http://[2002:a9fe:a9fe::1]/', '169.254.169.254'],
  ['http://[::ffff:100.100.100.200]/', '100.100.100.200'],
  // Metadata services outside link-local space.
  ['http://[fd00:ec2::254]/', 'fd00:ec2::254'],
  ['http://[FD00:EC2:0::254]/latest', 'fd00:ec2::254'],
  ['http://[fd20:ce::254]/', 'fd20:ce::254'],
  ['http://100.100.100.200/latest/meta-data', '100.100.100.200'],
  ['http://168.63.129.16/machine', '168.63.129.16'],
  ['http://192.0.0.192/', '192.0.0.192'],
  // Metadata names, any case, trailing dots, escaped or full-width dots.
  ['http://metadata.google.internal/computeMetadata/v1', 'metadata.google.internal'],
  ['http://METADATA.google.internal./', 'metadata.google.internal'],
  ['http://metadata.google.internal../', 'metadata.google.internal'],
  ['http://metadata%2Egoogle%2Einternal/', 'metadata.google.internal'],
  ['http://metadata\u3002google\u3002internal/', 'metadata.google.internal'],
  ['http://metadata/computeMetadata/v1', 'metadata'],
  ['https://instance-data.ec2.internal/latest', 'instance-data.ec2.internal'],
  ['http://metadata.tencentyun.com/latest', 'metadata.tencentyun.com'],
];

/** Loopback (the tests' own fakes), private ranges and ordinary names stay allowed. */
const ALLOWED = [
  'https://api.openai.com/v1',
  'http://127.0.0.1:8000/v1',
  'http://localhost:11434/v1',
  'http://[::1]:8080/',
  'http://10.0.0.7:8000/v1',
  'http://192.168.1.20/v1',
  'http://172.16.0.5/',
  'http://100.64.0.1/',
  'http://[fd00::1]/v1',
  'http://[fd00:ec2::255]/',
  'http://[fec0::1]/',
  'http://169.253.255.255/',
  'http://169.255.0.1/',
  'http://[::ffff:10.0.0.7]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[64:ff9b::a00:7]/',
  'http://[2002:a00:7::1]/',
  'http://[2001:db8::a9fe:a9fe]/',
  'http://vllm.internal:8000/v1',
  'http://metadata.example.com/',
  'http://my-metadata/',
  'https://login.microsoftonline.us',
  'https://oauth2.googleapis.com/token',
  'not a url',
];

describe('the link-local guard (issues 34, 44)', () => {
  it.each(REFUSED)('refuses %s, naming %s', (url, named) => {
    const refusal = linkLocalRefusal(url);
    expect(refusal).toContain('link-local or cloud metadata address');
    expect(refusal).toContain(named);
    // On by default, and the refusal says how to lift it.
    expect(buildUpstreamGuard({})(url)).toContain('GATEWAY_ALLOW_LINK_LOCAL_UPSTREAMS=true allows it');
    expect(buildUpstreamGuard({ allowLinkLocalUpstreams: true })(url)).toBeUndefined();
  });

  it.each(ALLOWED)('allows %s', (url) => {
    expect(linkLocalRefusal(url)).toBeUndefined();
    expect(buildUpstreamGuard({})(url)).toBeUndefined();
  });

  it('reads GATEWAY_ALLOW_LINK_LOCAL_UPSTREAMS; the old GATEWAY_DENY_LINK_LOCAL_UPSTREAMS=true keeps the guard on', () => {
    expect(loadConfig({}).allowLinkLocalUpstreams).toBe(false);
    expect(loadConfig({ GATEWAY_ALLOW_LINK_LOCAL_UPSTREAMS: 'true' }).allowLinkLocalUpstreams).toBe(true);
    expect(loadConfig({ GATEWAY_DENY_LINK_LOCAL_UPSTREAMS: 'true' }).allowLinkLocalUpstreams).toBe(false);
    expect(loadConfig({ GATEWAY_DENY_LINK_LOCAL_UPSTREAMS: 'false' }).allowLinkLocalUpstreams).toBe(false);
    expect(loadConfig({ GATEWAY_ALLOW_LINK_LOCAL_UPSTREAMS: 'true', GATEWAY_DENY_LINK_LOCAL_UPSTREAMS: 'true' }).allowLinkLocalUpstreams).toBe(false);
  });
});

const MODELS = { 'delta-4.1': 'gpt-4.1' };
/** A Vertex service-account key whose token endpoint is the metadata service (the key itself is never used: the check refuses it first). */
const serviceAccount = (tokenUri: string) => JSON.stringify({ client_email: 'gw@p.iam.gserviceaccount.com', private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n', token_uri: tokenUri });

describe('the configuration file: a refused URL stops the start, naming the definition and its field', () => {
  const cases: [what: string, file: FileConfig, message: RegExp][] = [
    [
      'a channel base_url',
      { channels: [{ name: 'sneaky', vendor: 'openai', base_url: 'http://169.254.169.254/v1', api_key: 'x', models: MODELS }] },
      /channel 'sneaky': 'base_url' points at a link-local or cloud metadata address \(169\.254\.169\.254\)/,
    ],
    [
      'an Azure authority_host',
      { channels: [{ name: 'entra', vendor: 'azure-openai', base_url: 'https://x.openai.azure.com', tenant_id: 't', client_id: 'c', client_secret: 's', authority_host: 'http://[::169.254.169.254]', models: MODELS }] },
      /channel 'entra': 'authority_host' points at .*169\.254\.169\.254/,
    ],
    [
      'a Vertex service account token_uri',
      { channels: [{ name: 'gcp', vendor: 'vertex', project: 'p', service_account: serviceAccount('http://metadata.google.internal./token'), models: {} }] },
      /channel 'gcp': 'service_account\.token_uri' points at .*metadata\.google\.internal/,
    ],
    [
      'an MCP server url',
      { mcp_servers: [{ name: 'imds', url: 'http://[64:ff9b::a9fe:a9fe]/mcp' }] },
      /MCP server 'imds': 'url' points at .*169\.254\.169\.254/,
    ],
    [
      "an MCP server's OAuth token_url",
      { mcp_servers: [{ name: 'docs', url: 'http://127.0.0.1:9/mcp', auth: { type: 'oauth_client_credentials', token_url: 'http://[fd00:ec2::254]/token', client_id: 'c', client_secret: 's' } }] },
      /MCP server 'docs': 'auth\.token_url' points at .*fd00:ec2::254/,
    ],
  ];
  it.each(cases)('%s', async (_what, file, message) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-guard-'));
    try {
      await expect(startTestGateway({ dataDir, file })).rejects.toThrow(message);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('GATEWAY_ALLOW_LINK_LOCAL_UPSTREAMS=true lets them start', async () => {
    const file: FileConfig = {
      channels: [{ name: 'imds', vendor: 'openai', base_url: 'http://169.254.169.254/v1', api_key: 'x', models: MODELS }],
      mcp_servers: [{ name: 'imds', url: 'http://[64:ff9b::a9fe:a9fe]/mcp' }],
    };
    const gateway = await startTestGateway({ file, env: { allowLinkLocalUpstreams: true } });
    await gateway.stop();
  });
});

describe('the admin API: 400 naming the field', () => {
  let guarded: TestGateway;
  let open: TestGateway;
  beforeAll(async () => {
    [guarded, open] = await Promise.all([startTestGateway(), startTestGateway({ env: { allowLinkLocalUpstreams: true } })]);
  });
  afterAll(async () => {
    await Promise.all([guarded.stop(), open.stop()]);
  });

  const refused = (answer: { status: number; json: any; text: string }, param: string) => {
    expect(answer.status, answer.text).toBe(400);
    assertEnvelope('general', answer.json);
    // The admin envelope has no `param`: the message names the field first.
    expect(answer.json.error.message).toMatch(new RegExp(`^'${param.replace(/\./g, '\\.')}' points at a link-local or cloud metadata address`));
    expect(answer.json.error.message).toContain('GATEWAY_ALLOW_LINK_LOCAL_UPSTREAMS');
  };

  it('channels: base_url on create and update, Azure authority_host, a Vertex key’s token_uri', async () => {
    const body = { name: 'imds', vendor: 'openai', base_url: 'http://[::169.254.169.254]/v1', api_key: 'x', models: MODELS };
    refused(await admin(guarded, 'POST', '/channels', body), 'base_url');
    refused(await admin(guarded, 'POST', '/channels', { ...body, base_url: 'http://[64:ff9b::a9fe:a9fe]/v1' }), 'base_url');
    const fine = await admin(guarded, 'POST', '/channels', { ...body, base_url: 'http://10.0.0.7:8000/v1' });
    expect(fine.status, fine.text).toBe(201);
    refused(await admin(guarded, 'PATCH', '/channels/imds', { base_url: 'http://metadata.google.internal./v1' }), 'base_url');
    refused(await admin(guarded, 'PATCH', '/channels/imds', { base_url: 'http://[fe80::1%25eth0]/v1' }), 'base_url');

    const azure = { name: 'entra', vendor: 'azure-openai', base_url: 'https://x.openai.azure.com', tenant_id: 't', client_id: 'c', client_secret: 's', models: MODELS };
    refused(await admin(guarded, 'POST', '/channels', { ...azure, authority_host: 'http://2852039166' }), 'authority_host');
    expect((await admin(guarded, 'POST', '/channels', azure)).status).toBe(201);
    refused(await admin(guarded, 'PATCH', '/channels/entra', { authority_host: 'http://[::ffff:169.254.169.254]' }), 'authority_host');

    const vertex = { name: 'gcp', vendor: 'vertex', project: 'p', models: {} };
    refused(await admin(guarded, 'POST', '/channels', { ...vertex, service_account: serviceAccount('http://169.254.169.254/token') }), 'service_account.token_uri');

    // Allowed where the operator said so.
    expect((await admin(open, 'POST', '/channels', body)).status).toBe(201);
    expect((await admin(open, 'POST', '/channels', { ...azure, authority_host: 'http://2852039166' })).status).toBe(201);
  });

  it('MCP servers: url and the OAuth token_url, on create and update', async () => {
    refused(await admin(guarded, 'POST', '/mcp-servers', { name: 'imds', url: 'http://[::169.254.169.254]/mcp' }), 'url');
    refused(await admin(guarded, 'POST', '/mcp-servers', { name: 'imds', url: 'http://[64:ff9b::a9fe:a9fe]/mcp' }), 'url');
    const oauth = { type: 'oauth_client_credentials', token_url: 'http://100.100.100.200/token', client_id: 'c', client_secret: 's' };
    refused(await admin(guarded, 'POST', '/mcp-servers', { name: 'docs', url: 'http://127.0.0.1:9/mcp', auth: oauth }), 'auth.token_url');
    const created = await admin(guarded, 'POST', '/mcp-servers', { name: 'docs', url: 'http://127.0.0.1:9/mcp' });
    expect(created.status, created.text).toBe(201);
    refused(await admin(guarded, 'PATCH', '/mcp-servers/docs', { url: 'http://metadata/mcp' }), 'url');
    refused(await admin(guarded, 'PATCH', '/mcp-servers/docs', { auth: { ...oauth, token_url: 'http://[fe80::a9fe:a9fe]/token' } }), 'auth.token_url');

    expect((await admin(open, 'POST', '/mcp-servers', { name: 'docs', url: 'http://127.0.0.1:9/mcp', auth: oauth })).status).toBe(201);
  });
});

describe('URLs an upstream names: a video result on the metadata service is not downloaded', () => {
  let gateway: TestGateway;
  let vendor: FakeVendor;
  beforeAll(async () => {
    const task = { task_id: '867283741759111202', task_info: {}, created_at: 1722769557708, updated_at: 1722769557708 };
    // A Kling-shaped upstream whose finished task lies on the metadata service.
    vendor = await startFakeVendor(({ method }) => ({
      json: { code: 0, message: 'SUCCEED', request_id: 'r', data: method === 'POST' ? { ...task, task_status: 'submitted' } : { ...task, task_status: 'succeed', task_status_msg: '', task_result: { videos: [{ id: 'v', url: 'http://[::ffff:169.254.169.254]/latest/meta-data/iam/video.mp4', duration: '5' }] } } },
    }));
    gateway = await startTestGateway({ file: { channels: [{ name: 'kling-direct', vendor: 'kling', base_url: vendor.url, access_key: 'ak', secret_key: 'sk', models: { 'kling-v2-6': 'kling-v2-6' } }] } });
  });
  afterAll(async () => {
    await gateway.stop();
    await vendor.close();
  });

  it('the task fails at once, saying why', async () => {
    const created = await call(gateway, 'POST', '/videoalt/v1/videos/text2video', { model_name: 'kling-v2-6', prompt: 'A rabbit', duration: '5' });
    expect(created.status, created.text).toBe(200);
    const seen = await pollUntil(gateway, `/videoalt/v1/videos/${created.json.data.task_id}`, (json) => json.data.task_status === 'succeed' || json.data.task_status === 'failed');
    const done = seen.at(-1).data;
    expect(done.task_status).toBe('failed');
    expect(done.task_status_msg).toContain('link-local or cloud metadata address (169.254.169.254');
  });
});

describe('definitions stored while link-local addresses were allowed', () => {
  it('an MCP server is not served once the guard is on; a channel stops the start', async () => {
    const allowing = await startTestGateway({ env: { allowLinkLocalUpstreams: true } });
    const { dataDir } = allowing;
    expect((await admin(allowing, 'POST', '/mcp-servers', { name: 'imds', url: 'http://[::169.254.169.254]/mcp' })).status).toBe(201);
    expect((await admin(allowing, 'POST', '/mcp-servers', { name: 'docs', url: 'http://127.0.0.1:9/mcp' })).status).toBe(201);
    await allowing.stop({ keepData: true });

    const guarded = await startTestGateway({ dataDir });
    try {
      const listed = await admin(guarded, 'GET', '/mcp-servers');
      expect(listed.json.data.map((server: { name: string }) => server.name)).toEqual(['docs']);
      expect((await admin(guarded, 'GET', '/mcp-servers/imds')).status).toBe(404);
      // Removing it still works.
      expect((await admin(guarded, 'DELETE', '/mcp-servers/imds')).status).toBe(204);
      expect((await admin(guarded, 'POST', '/channels', { name: 'imds', vendor: 'openai', base_url: 'http://169.254.169.254/v1', api_key: 'x', models: MODELS })).status).toBe(400);
    } finally {
      await guarded.stop({ keepData: true });
    }

    const again = await startTestGateway({ dataDir, env: { allowLinkLocalUpstreams: true } });
    expect((await admin(again, 'POST', '/channels', { name: 'imds', vendor: 'openai', base_url: 'http://169.254.169.254/v1', api_key: 'x', models: MODELS })).status).toBe(201);
    await again.stop({ keepData: true });
    await expect(startTestGateway({ dataDir })).rejects.toThrow(/channel 'imds': 'base_url' points at a link-local or cloud metadata address \(169\.254\.169\.254\)/);
    rmSync(dataDir, { recursive: true, force: true });
  });
});

describe('token endpoints and MCP streams are not redirected elsewhere (a redirect would pass the guard)', () => {
  let target: Server;
  let redirecting: Server;
  let targetHits = 0;
  let redirectUrl = '';
  const listen = async (server: Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  beforeAll(async () => {
    // The target stands in for the metadata service: loopback, so a followed redirect would reach it.
    target = createServer((_request, response) => {
      targetHits++;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'from-the-target', expires_in: 3600 }));
    });
    const targetUrl = await listen(target);
    redirecting = createServer((_request, response) => response.writeHead(307, { location: `${targetUrl}/token` }).end());
    redirectUrl = `${await listen(redirecting)}/token`;
  });
  afterAll(async () => {
    await Promise.all([target, redirecting].map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('a cloud identity service (Entra ID, Google, the MCP OAuth token_url)', async () => {
    await expect(fetchAccessToken('Microsoft Entra ID', redirectUrl, { grant_type: 'client_credentials' }, Date.now())).rejects.toMatchObject({ code: 'GW_UPSTREAM_AUTH' });
    const auth = new McpUpstreamAuth();
    const server = { name: 'docs', url: 'http://127.0.0.1:9/mcp', origin: 'file' as const, auth: { type: 'oauth_client_credentials' as const, token_url: redirectUrl, client_id: 'c', client_secret: 's' } };
    await expect(auth.headersFor(server)).rejects.toThrow();
    expect(targetHits).toBe(0);
  });

  it("an MCP server's server-to-client stream (the SDK's own requests follow same-origin redirects only)", async () => {
    const server = { name: 'hop', url: redirectUrl, origin: 'runtime' as const };
    const listening = await listenUpstream({ credentials: {}, health: new McpHealth(), timeoutMs: 5_000, dispatcher: new Agent(), maxEventBytes: 1 << 20 }, server, { sessionId: 's', protocolVersion: '2025-03-26' }, new AbortController().signal, () => undefined);
    expect(listening).toBeUndefined();
    expect(targetHits).toBe(0);
  });
});
