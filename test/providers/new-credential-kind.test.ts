import { createHash, verify, X509Certificate } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, bearer } from '../helpers/admin.js';
import { call, TEST_KEY } from '../helpers/gateway.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/instance-process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = join(ROOT, 'test', 'fixtures', 'vendor-folder', 'acme-cert');
const REGISTRY = join('providers', 'registry.ts');
const REGISTRY_LINE = "  (await import('./acme-cert/index.js')).acmeCert,";
/** A throwaway self-signed EC certificate and its key (test data only). */
const CERT = readFileSync(join(ROOT, 'test', 'fixtures', 'client-cert', 'cert.pem'), 'utf8');
const KEY = readFileSync(join(ROOT, 'test', 'fixtures', 'client-cert', 'key.pem'), 'utf8');
/** A line of the key's base64 body: found in clear anywhere, the key leaked. */
const KEY_LINE = KEY.split('\n')[1]!;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  (function walk(d: string) {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(dir, full));
    }
  })(dir);
  return out.sort();
}

/**
 * The vendor's server: checks each call's signature against the certificate it carries (so a
 * channel whose key was stored or opened wrong fails), and for model `echo` answers a 401 quoting
 * the private key it was configured with, as a careless error page would.
 */
async function startCertUpstream(): Promise<{ url: string; signed: number; close(): Promise<void> }> {
  const state = { signed: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const reply = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      const cert = Buffer.from(String(req.headers['x-acme-client-cert'] ?? ''), 'base64').toString('utf8');
      const signature = Buffer.from(String(req.headers['x-acme-signature'] ?? ''), 'base64');
      const signed = `${req.method} ${new URL(req.url ?? '/', 'http://upstream').pathname}\n${createHash('sha256').update(body).digest('hex')}`;
      let valid = false;
      try {
        valid = cert === CERT && verify('sha256', Buffer.from(signed), new X509Certificate(cert).publicKey, signature);
      } catch {
        valid = false;
      }
      if (!valid) return reply(401, { error: { message: 'no valid client certificate signature' } });
      state.signed++;
      const { model } = JSON.parse(body) as { model: string };
      if (model === 'echo') return reply(401, { error: { message: `client key rejected: ${KEY}` } });
      reply(200, {
        id: 'chatcmpl-acme', object: 'chat.completion', created: 1, model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'signed hello' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    get signed() {
      return state.signed;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const chat = (gateway: GatewayProcess, model: string) =>
  call(gateway, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hello' }] }, bearer(TEST_KEY));

/**
 * A vendor whose channels authenticate with a client certificate (a PEM certificate and a secret
 * PEM private key), a kind of credential no vendor had (issue 43): its folder declares the two
 * fields, and a copy of src/ with that folder and one registry line takes them in YAML and through
 * the admin API, seals the key at rest, masks it in views and removes it from upstream error text.
 */
describe('a vendor with a new kind of credential is one folder and one registry line (issue 43)', () => {
  let tree: string;
  let dataDir: string;
  let upstream: Awaited<ReturnType<typeof startCertUpstream>>;
  let gateway: GatewayProcess;
  beforeAll(async () => {
    upstream = await startCertUpstream();
    tree = mkdtempSync(join(tmpdir(), 'gateway-cert-vendor-'));
    cpSync(join(ROOT, 'src'), join(tree, 'src'), { recursive: true });
    for (const shared of ['node_modules', 'assets', 'package.json', 'tsconfig.json']) symlinkSync(join(ROOT, shared), join(tree, shared));
    cpSync(FIXTURE, join(tree, 'src', 'providers', 'acme-cert'), { recursive: true });
    const registry = join(tree, 'src', REGISTRY);
    const lines = readFileSync(registry, 'utf8').split('\n');
    lines.splice(lines.indexOf('] as const;'), 0, REGISTRY_LINE);
    writeFileSync(registry, lines.join('\n'));
    dataDir = join(tree, 'data');
    mkdirSync(dataDir);
    gateway = await startGatewayProcess({
      name: 'cert-vendor',
      root: tree,
      dataDir,
      databaseUrl: '',
      startTimeoutMs: 100_000,
      file: {
        channels: [{ name: 'acme-yaml', vendor: 'acme-cert', base_url: upstream.url, client_cert: CERT, client_key: KEY, models: { 'acme-cert-large': 'large', 'acme-cert-echo': 'echo' } }],
      },
    });
  }, 120_000);
  afterAll(async () => {
    await gateway?.stop();
    await upstream?.close();
    if (tree) rmSync(tree, { recursive: true, force: true });
  });

  it('differs from src/ by the new folder and the one registry line only', () => {
    const original = filesUnder(join(ROOT, 'src'));
    const copy = filesUnder(join(tree, 'src'));
    expect(copy.filter((file) => !original.includes(file))).toEqual(filesUnder(FIXTURE).map((file) => join('providers', 'acme-cert', file)));
    const changed = original.filter((file) => !readFileSync(join(ROOT, 'src', file)).equals(readFileSync(join(tree, 'src', file))));
    expect(changed).toEqual([REGISTRY]);
  });

  it('lists the declared fields, typed, where the console builds its form', async () => {
    const vendors = (await admin(gateway, 'GET', '/vendors')).json.data as Array<{ vendor: string; credentials: unknown[] }>;
    expect(vendors.find((vendor) => vendor.vendor === 'acme-cert')?.credentials).toEqual([
      expect.objectContaining({ name: 'client_cert', type: 'pem', secret: false, multiline: true, row: false }),
      expect.objectContaining({ name: 'client_key', type: 'pem', secret: true, multiline: true, row: true }),
    ]);
  });

  it('serves through the YAML channel, signed with its key; the admin view masks the key', async () => {
    const answer = await chat(gateway, 'acme-cert-large');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.choices[0].message.content).toBe('signed hello');
    const view = await admin(gateway, 'GET', '/channels/acme-yaml');
    expect(view.status).toBe(200);
    expect(view.json.credentials.client_key).toBe('••••');
    expect(view.json.settings.client_cert).toBe(CERT);
    expect(view.json.row_fields).toEqual([{ name: 'client_key', label: 'Client private key (PEM)', value: '••••' }]);
    expect((await admin(gateway, 'GET', '/channels')).text).not.toContain(KEY_LINE);
  });

  it('takes the fields through the admin API and keeps the key sealed at rest', async () => {
    const created = await admin(gateway, 'POST', '/channels', { name: 'acme-api', vendor: 'acme-cert', base_url: upstream.url, client_cert: CERT, client_key: KEY, models: { 'acme-cert-large': 'large' } });
    expect(created.status, created.text).toBe(201);
    expect(created.json.credentials.client_key).toBe('••••');
    expect(created.text).not.toContain(KEY_LINE);
    await admin(gateway, 'PATCH', '/channels/acme-yaml', { enabled: false });
    const before = upstream.signed;
    const answer = await chat(gateway, 'acme-cert-large');
    expect(answer.status, answer.text).toBe(200);
    expect(upstream.signed).toBe(before + 1);
    await admin(gateway, 'PATCH', '/channels/acme-yaml', { enabled: true });
    // The database and its journal (not the operator's own YAML file) hold no line of the key.
    const stored = filesUnder(dataDir).filter((file) => !file.endsWith('.yaml'));
    expect(stored.some((file) => file.includes('sqlite') || file.endsWith('.db'))).toBe(true);
    for (const file of stored) expect(readFileSync(join(dataDir, file)).includes(KEY_LINE), file).toBe(false);
  });

  it('removes the key from upstream error text, for the client and in the channel view', async () => {
    const answer = await chat(gateway, 'acme-cert-echo');
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.text).not.toContain(KEY_LINE);
    const view = await admin(gateway, 'GET', '/channels/acme-yaml');
    expect(view.json.last_error?.vendor_message ?? '').toContain('client key rejected');
    expect(view.text).not.toContain(KEY_LINE);
  });
});
