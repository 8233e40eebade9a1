import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const chatBody = (stream = false) => JSON.stringify({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], stream });

/** Security headers on every answer, and CORS only for the origins an operator lists (issue 13). */
describe('security headers and CORS', () => {
  let plain: TestGateway;
  let cors: TestGateway;
  const post = (gateway: TestGateway, path: string, headers: Record<string, string> = {}, body = chatBody()) =>
    fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json', ...headers }, body });

  beforeAll(async () => {
    plain = await startTestGateway();
    cors = await startTestGateway({ env: { corsOrigins: ['https://app.example'] } });
  });
  afterAll(async () => {
    await plain.stop();
    await cors.stop();
  });

  it('every answer says nosniff and no-referrer: success, stream, 401, 404, health', async () => {
    const answers = [
      await post(plain, '/v1/chat/completions'),
      await post(plain, '/v1/chat/completions', {}, chatBody(true)),
      await post(plain, '/v1/chat/completions', { authorization: 'Bearer nope' }),
      await fetch(`${plain.url}/no/such/path`),
      await fetch(`${plain.url}/healthz`),
    ];
    for (const response of answers) {
      await response.arrayBuffer();
      expect(response.headers.get('x-content-type-options'), response.url).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it('the API reference page carries a Content-Security-Policy', async () => {
    const page = await fetch(`${plain.url}/docs/static/index.html`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('CORS is off by default: no allow-origin, and a preflight finds no endpoint', async () => {
    const response = await post(plain, '/v1/chat/completions', { origin: 'https://app.example' });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${plain.url}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.status).toBe(404);
  });

  it('with an allow-list: listed origins get CORS headers and a preflight, others nothing', async () => {
    const listed = await post(cors, '/v1/chat/completions', { origin: 'https://app.example' });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(listed.headers.get('access-control-expose-headers')).toContain('x-request-id');
    const other = await post(cors, '/v1/chat/completions', { origin: 'https://evil.example' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${cors.url}/v1/chat/completions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    const refused = await fetch(`${cors.url}/v1/chat/completions`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});
