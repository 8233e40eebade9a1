import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

describe('system endpoints and error envelopes (issue 2)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('answers health, readiness and the OpenAPI document without a key', async () => {
    expect((await call(gateway, 'GET', '/healthz', undefined, {})).json).toEqual({ status: 'ok' });
    expect((await call(gateway, 'GET', '/readyz', undefined, {})).json).toEqual({ status: 'ready' });
    const openapi = await call(gateway, 'GET', '/openapi.json', undefined, {});
    expect(openapi.status).toBe(200);
    expect(openapi.json.openapi).toMatch(/^3\./);
    expect(Object.keys(openapi.json.paths)).toContain('/v1/models');
    const docs = await fetch(`${gateway.url}/docs`, { redirect: 'follow' });
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('<html');
  });

  it('GET / sends a browser to the console and tells other clients where things are (issue 35)', async () => {
    const browser = await fetch(`${gateway.url}/`, { headers: { accept: 'text/html,application/xhtml+xml' }, redirect: 'manual' });
    expect(browser.status).toBe(302);
    expect(browser.headers.get('location')).toBe('/console');
    const client = await call(gateway, 'GET', '/', undefined, {});
    expect(client.status).toBe(200);
    expect(client.json).toMatchObject({ console: '/console', docs: '/docs', api: '/v1' });
  });

  it('rejects a missing or invalid key with 401 in the general envelope', async () => {
    const missing = await call(gateway, 'GET', '/v1/models', undefined, {});
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({ error: { message: expect.any(String), type: 'authentication_error', code: 'invalid_api_key' } });
    const invalid = await call(gateway, 'GET', '/v1/models', undefined, { authorization: 'Bearer sk-gw-nope' });
    expect(invalid.status).toBe(401);
    expect(invalid.json.error.code).toBe('invalid_api_key');
  });

  it('lists the catalog in the OpenAI list shape', async () => {
    const models = await call(gateway, 'GET', '/v1/models');
    expect(models.status).toBe(200);
    expect(models.json.object).toBe('list');
    const ids = models.json.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['delta-4.1', 'beta-seed-2.0-pro', 'epsilon-4.7', 'alpha-opus-4-20250514', 'zeta-1.0-r2v', 'gamma-2.5-flash-lite']));
    expect(models.json.data[0]).toEqual({ id: expect.any(String), object: 'model', created: expect.any(Number), owned_by: expect.any(String) });
  });

  it('gives unknown paths a 404 in the envelope of their prefix', async () => {
    const general = await call(gateway, 'GET', '/v1/nothing-here');
    expect(general.status).toBe(404);
    expect(general.json.error).toEqual({ message: expect.any(String), type: 'invalid_request_error', code: 'not_found' });
    const google = await call(gateway, 'POST', '/v1beta/models/unknown:generateContent?key=x', {});
    expect(google.status).toBe(404);
    expect(google.json.error).toEqual({ code: 404, message: expect.any(String), status: 'NOT_FOUND' });
    const wrongMethod = await call(gateway, 'GET', '/v1/chat/completions');
    expect(wrongMethod.status).toBe(404);
    expect(wrongMethod.json.error).toEqual({ code: 'not_found', message: expect.stringContaining('GET') });
  });
});
