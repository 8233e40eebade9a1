import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvelopeKind } from '../../../src/api/envelopes.js';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin, bearer, createKey } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';

const USER = [{ role: 'user', content: 'hi' }];

/** One request per endpoint family, each for a model the restricted key below may not use. */
const FAMILY_CALLS: Array<{ family: string; path: string; body: Record<string, unknown>; envelope: EnvelopeKind }> = [
  { family: 'chat-completions', path: '/v1/chat/completions', body: { model: 'epsilon-4.7', messages: USER }, envelope: 'chat' },
  { family: 'messages', path: '/v1/messages', body: { model: 'alpha-sonnet-4-5-20250929', messages: USER }, envelope: 'chat' },
  { family: 'responses', path: '/v1/responses', body: { model: 'epsilon-4.7', input: 'hi' }, envelope: 'general' },
  { family: 'images', path: '/v1/images/generations', body: { model: 'gamma-3.1-flash-image', prompt: 'A kite' }, envelope: 'general' },
  { family: 'video-generations', path: '/v1/video/generations', body: { model: 'zeta-1.0-r2v', prompt: 'A cat', images: ['https://example.com/a.png'] }, envelope: 'general' },
  { family: 'generate-content', path: '/v1beta/models/gamma-2.5-flash-lite:generateContent', body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, envelope: 'google' },
  { family: 'videoalt', path: '/videoalt/v1/videos/text2video', body: { model_name: 'kling-v2-1-master', prompt: 'A rabbit' }, envelope: 'kling' },
  { family: 'cloud-asset', path: '/cloud/asset/ListAssets', body: { model: 'cloud-asset' }, envelope: 'general' },
];

describe('key permissions in every family (issue 4)', () => {
  let gateway: TestGateway;
  let restricted: string;
  beforeAll(async () => {
    gateway = await startTestGateway();
    restricted = (await createKey(gateway, { models: ['delta-4.1', 'kling-v2-1'] })).key;
  });
  afterAll(() => gateway.stop());

  it('an allowed model passes', async () => {
    const ok = await call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: USER }, bearer(restricted));
    expect(ok.status).toBe(200);
  });

  it.each(FAMILY_CALLS)('a model the key may not use: 403 permission_denied in the $family envelope', async ({ path, body, envelope }) => {
    const response = await call(gateway, 'POST', path, body, bearer(restricted));
    expect(response.status).toBe(403);
    assertEnvelope(envelope, response.json);
    switch (envelope) {
      case 'general':
        expect(response.json.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
        break;
      case 'chat':
        expect(response.json.error.code).toBe('permission_denied');
        break;
      case 'google':
        expect(response.json.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
        break;
      case 'kling':
        expect(response.json.code).toBe(1103);
        break;
    }
  });

  it('an endpoint family the key may not use: 403 even for a model it may use', async () => {
    const { key } = await createKey(gateway, { endpoints: ['chat-completions'] });
    expect((await call(gateway, 'POST', '/v1/chat/completions', { model: 'epsilon-4.7', messages: USER }, bearer(key))).status).toBe(200);
    const refused = await call(gateway, 'POST', '/v1/responses', { model: 'epsilon-4.7', input: 'hi' }, bearer(key));
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({ code: 'permission_denied', message: expect.stringContaining('responses') });
    const google = await call(gateway, 'POST', '/v1beta/models/gamma-2.5-flash-lite:generateContent', FAMILY_CALLS[5]!.body, { 'x-goog-api-key': key });
    expect(google.json.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
  });

  it('model matching is exact: no prefix or wildcard reaches a longer id', async () => {
    // kling-v2-1 is a prefix of kling-v2-1-master (refused above); the exact id passes.
    const exact = await call(gateway, 'POST', '/videoalt/v1/videos/image2video', { model_name: 'kling-v2-1', image: 'https://example.com/a.png', prompt: 'x' }, bearer(restricted));
    expect(exact.status).toBe(200);
    // A store-level key (as `gateway keys create --models` makes) naming a non-catalog prefix reaches nothing.
    const { secret } = await gateway.deps.keys.create({ name: 'prefix', models: ['beta-seed-2.0', 'beta-seed-*'] });
    for (const model of ['beta-seed-2.0-pro', 'beta-seed-2.0-lite']) {
      const response = await call(gateway, 'POST', '/v1/chat/completions', { model, messages: USER }, bearer(secret));
      expect(response.status).toBe(403);
    }
    const models = await call(gateway, 'GET', '/v1/models', undefined, bearer(secret));
    expect(models.json.data).toEqual([]);
  });

  it('/v1/models lists exactly what the key may use', async () => {
    const listed = await call(gateway, 'GET', '/v1/models', undefined, bearer(restricted));
    expect(listed.json.data.map((m: { id: string }) => m.id).sort()).toEqual(['delta-4.1', 'kling-v2-1']);
    const { key } = await createKey(gateway, { endpoints: ['messages'] });
    const messagesOnly = await call(gateway, 'GET', '/v1/models', undefined, bearer(key));
    expect(messagesOnly.json.data.map((m: { id: string }) => m.id).sort()).toEqual(['alpha-opus-4-20250514', 'alpha-sonnet-4-5-20250929']);
    expect((await call(gateway, 'GET', '/v1/models/epsilon-4.7', undefined, bearer(restricted))).status).toBe(404);
  });

  it('a revoked key is 401 in every family envelope', async () => {
    const { id, key } = await createKey(gateway, {});
    await admin(gateway, 'DELETE', `/keys/${id}`);
    for (const { path, body, envelope } of FAMILY_CALLS) {
      const headers = envelope === 'google' ? { 'x-goog-api-key': key } : bearer(key);
      const response = await call(gateway, 'POST', path, body, headers);
      expect(response.status, path).toBe(401);
      assertEnvelope(envelope, response.json);
    }
  });
});
