import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

/**
 * Issue 15: links the gateway hands out use GATEWAY_PUBLIC_URL, else the origin the client
 * reached (its Host; X-Forwarded-* only from proxies GATEWAY_TRUST_PROXY trusts), never the
 * loopback listen address for a remote client.
 */
const body = JSON.stringify({ model: 'gamma-3.1-flash-image', prompt: 'a cat', size: '256x256', response_format: 'url' });

function imageUrl(gateway: TestGateway, headers: Record<string, string>): Promise<string> {
  const { port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/images/generations', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => (res.statusCode === 200 ? resolve((JSON.parse(text) as { data: Array<{ url: string }> }).data[0]!.url) : reject(new Error(text))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('links handed out', () => {
  const gateways: TestGateway[] = [];
  let plain: TestGateway;
  let proxied: TestGateway;
  let pinned: TestGateway;
  beforeAll(async () => {
    plain = await startTestGateway();
    proxied = await startTestGateway({ env: { trustProxy: ['127.0.0.1'] } });
    pinned = await startTestGateway({ env: { publicUrl: 'https://media.example.org' } });
    gateways.push(plain, proxied, pinned);
  });
  afterAll(() => Promise.all(gateways.map((g) => g.stop())));

  it('use the Host the client reached, not the listen address', async () => {
    expect(await imageUrl(plain, { host: 'gw.example.test:8443' })).toMatch(/^http:\/\/gw\.example\.test:8443\/media\/images\/[\w-]+\.\w+$/);
  });

  it('ignore X-Forwarded-* unless the proxy is trusted, then follow them', async () => {
    const forwarded = { host: 'internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.com' };
    expect(await imageUrl(plain, forwarded)).toMatch(/^http:\/\/internal:8080\//);
    expect(await imageUrl(proxied, forwarded)).toMatch(/^https:\/\/api\.example\.com\/media\/images\//);
  });

  it('use GATEWAY_PUBLIC_URL when it is set, whatever the request says', async () => {
    expect(await imageUrl(pinned, { host: 'gw.example.test', 'x-forwarded-host': 'evil.example' })).toMatch(/^https:\/\/media\.example\.org\/media\/images\//);
  });

  it('never put a Host that is not a plain host name into a link', async () => {
    expect(await imageUrl(plain, { host: 'evil.example@x' })).toMatch(new RegExp(`^${plain.url}/media/images/`));
  });
});
