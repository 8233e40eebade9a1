import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../helpers/instance-process.js';
import { TEST_ADMIN_TOKEN, TEST_KEY } from '../helpers/gateway.js';

const CREDENTIAL = 'vllm-token-Q7r2x9Kp3mWz';
const HEADER_SECRET = 'tenant-hdr-5f2c9e71';
const HOST = 'localhost';

/**
 * Issue 34: redaction used to be by pattern only, so an upstream 400 quoting the channel's
 * credential (`vllm-token-…` matches no pattern) or its internal host name reached the key
 * holder, their request log and the logs. The gateway knows both, and removes them by value.
 */
describe('upstream error text is redacted by value (issue 34)', () => {
  let upstream: Server;
  let gateway: GatewayProcess;
  let dataDir: string;
  let port: number;

  beforeAll(async () => {
    upstream = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const quoted = `Invalid token ${request.headers.authorization?.replace(/^Bearer /, '')} (tenant ${request.headers['x-tenant']}) for http://${HOST}:${port}/v1 on ${HOST}:${port}, node fe80::1ff:fe23:4567:890a via [2001:db8::7]:8000, weights /srv/models/llama-70b/weights.bin`;
        response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: quoted, type: 'invalid_request_error' } }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    port = (upstream.address() as AddressInfo).port;
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-redaction-'));
    gateway = await startGatewayProcess({
      name: 'redaction',
      dataDir,
      databaseUrl: '',
      logLevel: 'debug',
      file: {
        request_log: { bodies: true },
        channels: [{ name: 'house-vllm', vendor: 'openai', base_url: `http://${HOST}:${port}/v1`, api_key: CREDENTIAL, headers: { 'x-tenant': HEADER_SECRET }, models: { 'delta-4.1': 'llama-70b' }, max_retries: 0 }],
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.stop();
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  const leaks = (text: string) => [CREDENTIAL, HEADER_SECRET, HOST, `${port}`, 'fe80::', '2001:db8', '/srv/models'].filter((secret) => text.includes(secret));

  it('the key holder, the request log, the channel view and the log lines never see the credential, the header, the host or the addresses', async () => {
    for (const stream of [false, true]) {
      const answer = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'delta-4.1', stream, messages: [{ role: 'user', content: 'hi' }] }),
      });
      const text = await answer.text();
      expect(answer.status, text).toBe(400);
      // The upstream's explanation still reaches the client, without what it must not see.
      expect(text).toContain('Invalid token');
      expect(leaks(text)).toEqual([]);
    }

    const admin = (path: string) => fetch(`${gateway.url}/admin/api${path}`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } }).then((r) => r.text());
    let list = JSON.parse(await admin('/requests?limit=5'));
    for (let waited = 0; list.data.length < 2 && waited < 10_000; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      list = JSON.parse(await admin('/requests?limit=5'));
    }
    expect(list.data.length).toBeGreaterThanOrEqual(2);
    for (const entry of list.data) {
      const detail = await admin(`/requests/${entry.id}`);
      expect(detail).toContain('Invalid token');
      expect(leaks(detail)).toEqual([]);
    }
    expect(leaks(JSON.stringify(list))).toEqual([]);
    const channel = await admin('/channels/house-vllm');
    expect(channel).not.toContain(CREDENTIAL);
    expect(channel).not.toContain(HEADER_SECRET);

    expect(gateway.stdout).toContain('upstream attempt failed');
    expect(leaks(gateway.stdout)).toEqual([]);
  }, 30_000);
});
