import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

/** Kling answers with business codes in its envelope; those about the client's request stay visible (issue 14). */
describe('Kling business codes in the native envelope', () => {
  let gateway: TestGateway;
  let server: Server;
  const replies: Array<[number, Record<string, unknown>]> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const [status, body] = replies.shift() ?? [500, { code: 5000, message: 'x' }];
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ request_id: 'up-1', ...body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    gateway = await startTestGateway({
      file: { channels: [{ name: 'kling-live', vendor: 'kling', base_url: url, access_key: 'ak', secret_key: 'sk', models: { 'kling-v1': 'kling-v1' }, max_retries: 0 }] },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    server.close();
  });

  const create = () => call(gateway, 'POST', '/videoalt/v1/videos/text2video', { prompt: 'x' });

  it('keeps a request error code (1201) and a rate code (1303) with their statuses', async () => {
    replies.push([400, { code: 1201, message: 'model is not supported' }]);
    const invalid = await create();
    expect(invalid.status).toBe(400);
    expect(invalid.json.code).toBe(1201);
    replies.push([429, { code: 1303, message: 'parallel task over resource pack limit' }]);
    const busy = await create();
    expect(busy.status).toBe(429);
    expect(busy.json.code).toBe(1303);
    expect(busy.headers.get('retry-after')).not.toBeNull();
  });

  it("turns the operator's account and credential codes into the gateway's own", async () => {
    replies.push([401, { code: 1002, message: 'access key is invalid' }]);
    const refused = await create();
    expect(refused.status).toBe(502);
    expect(refused.json.code).toBe(5000);
    expect(refused.text).not.toContain('access key');
  });
});
