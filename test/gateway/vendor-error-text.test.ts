import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../helpers/admin.js';
import { call, startTestGateway, type TestGateway } from '../helpers/gateway.js';

const CREDENTIAL = 'house-token-9Xq2Lm7Rt';

/**
 * Issue 35: the vendor's own error text ("vendorA is on fire", a 401 "invalid api key") was kept
 * nowhere: operators debug vendor incidents from it. The operator's views (the channel's last
 * error, Test, the request drawer's attempts) show it, redacted of the channel's credential; the
 * key holder keeps getting the gateway's sanitised message.
 */
describe("the vendor's error text reaches the operator, not the key holder", () => {
  let upstream: Server;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const auth = request.headers.authorization ?? '';
        if (request.url?.startsWith('/burning/')) {
          response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'vendorA is on fire', type: 'server_error' } }));
        } else {
          response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `invalid api key ${auth.replace(/^Bearer /, '')}`, type: 'invalid_request_error' } }));
        }
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    gateway = await startTestGateway({
      file: {
        models: [{ id: 'house-small', kind: 'chat' }],
        channels: [
          { name: 'burning', vendor: 'openai', base_url: `${base}/burning/v1`, api_key: CREDENTIAL, models: { 'delta-4.1': 'gpt-4.1' }, max_retries: 0 },
          { name: 'locked', vendor: 'openai', base_url: `${base}/locked/v1`, api_key: CREDENTIAL, models: { 'house-small': 'gpt-4.1-mini' }, max_retries: 0 },
        ],
      },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('the client gets the gateway message; the channel view and the drawer keep the vendor text', async () => {
    const failed = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }] }, undefined);
    expect(failed.status).toBe(502);
    expect(failed.text).not.toContain('on fire');

    const channel = await admin(gateway, 'GET', '/channels/burning');
    expect(channel.json.last_error).toMatchObject({ status: 500, vendor_message: 'vendorA is on fire' });

    const [entry] = (await admin(gateway, 'GET', '/requests?model=delta-4.1&limit=1')).json.data;
    const detail = await admin(gateway, 'GET', `/requests/${entry.id}`);
    expect(detail.json.attempts[0]).toMatchObject({ channel: 'burning', status: 500, vendor_message: 'vendorA is on fire' });
  });

  it("Test shows the vendor's status and words, without the credential it quoted", async () => {
    const test = await admin(gateway, 'POST', '/channels/locked/test', {});
    expect(test.status, test.text).toBe(200);
    expect(test.json).toMatchObject({ ok: false, vendor_status: 401 });
    expect(test.json.vendor_message).toContain('invalid api key');
    expect(test.text).not.toContain(CREDENTIAL);
    expect((await admin(gateway, 'GET', '/channels/locked')).text).not.toContain(CREDENTIAL);
  });
});
