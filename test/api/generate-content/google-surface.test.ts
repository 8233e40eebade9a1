import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSseText } from '../../../src/sse/parse.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { createKey } from '../../helpers/admin.js';

const body = { contents: [{ role: 'user', parts: [{ text: 'Hello surface' }] }] };
const googleKey = (key = TEST_KEY) => ({ 'x-goog-api-key': key });

/** The Gemini-native surface beyond the spec's two paths, as REST clients see it (issue 16). */
describe('Gemini-native surface under /v1 and /v1beta', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('serves the same generateContent under /v1 as under /v1beta, with the header or ?key=', async () => {
    const beta = await call(gateway, 'POST', `/v1beta/models/gamma-2.5-flash-lite:generateContent?key=${TEST_KEY}`, body, {});
    const v1 = await call(gateway, 'POST', '/v1/models/gamma-2.5-flash-lite:generateContent', body, googleKey());
    expect(beta.status).toBe(200);
    expect(v1.status).toBe(200);
    expect(v1.json.candidates[0].content.parts[0].text).toBe(beta.json.candidates[0].content.parts[0].text);
    const query = await call(gateway, 'POST', `/v1/models/gamma-2.5-flash-lite:generateContent?key=${TEST_KEY}`, body, {});
    expect(query.status).toBe(200);
  });

  it('streams the text model as SSE with alt=sse and as a JSON array without it', async () => {
    const sse = await fetch(`${gateway.url}/v1/models/gamma-2.5-flash-lite:streamGenerateContent?alt=sse`, { method: 'POST', headers: googleKey(), body: JSON.stringify(body) });
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await parseSseText(await sse.text())).map((e) => JSON.parse(e.data));
    const text = events.map((e) => e.candidates?.[0]?.content?.parts?.[0]?.text ?? '').join('');
    expect(text).toContain('Hello surface');
    expect(events.at(-1).usageMetadata.totalTokenCount).toBeGreaterThan(0);

    const array = await call(gateway, 'POST', '/v1beta/models/gamma-2.5-flash-lite:streamGenerateContent', body, googleKey());
    expect(array.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Array.isArray(array.json)).toBe(true);
    expect(array.json.map((c: any) => c.candidates?.[0]?.content?.parts?.[0]?.text ?? '').join('')).toBe(text);
  });

  it('countTokens counts contents and a whole generateContentRequest', async () => {
    const plain = await call(gateway, 'POST', '/v1/models/gamma-2.5-flash-lite:countTokens', body, googleKey());
    expect(plain.status).toBe(200);
    expect(plain.json.totalTokens).toBeGreaterThan(0);
    const wrapped = await call(gateway, 'POST', '/v1beta/models/gamma-2.5-flash-lite:countTokens', { generateContentRequest: { ...body, systemInstruction: { parts: [{ text: 'Be brief and kind.' }] } } }, googleKey());
    expect(wrapped.json.totalTokens).toBeGreaterThan(plain.json.totalTokens);
  });

  it('tells an OpenAI models call from a Google one on /v1/models by how the key travels', async () => {
    const openai = await call(gateway, 'GET', '/v1/models');
    expect(openai.json.object).toBe('list');
    const google = await call(gateway, 'GET', '/v1/models', undefined, googleKey());
    expect(google.json.models.map((m: any) => m.name).sort()).toEqual(['models/gamma-2.5-flash-lite', 'models/gamma-3.1-flash-image']);
    const googleQuery = await call(gateway, 'GET', `/v1/models/gamma-2.5-flash-lite?key=${TEST_KEY}`, undefined, {});
    expect(googleQuery.json).toMatchObject({ name: 'models/gamma-2.5-flash-lite', supportedGenerationMethods: ['generateContent', 'streamGenerateContent', 'countTokens'] });
    const openaiOne = await call(gateway, 'GET', '/v1/models/gamma-2.5-flash-lite');
    expect(openaiOne.json).toEqual({ id: 'gamma-2.5-flash-lite', object: 'model', created: expect.any(Number), owned_by: 'gamma' });
    const beta = await call(gateway, 'GET', '/v1beta/models', undefined, googleKey());
    expect(beta.json).toEqual(google.json);
  });

  it('lists and gets only the models the key may use; other models are 404 in the google envelope', async () => {
    const { key } = await createKey(gateway, { models: ['gamma-2.5-flash-lite'] });
    const list = await call(gateway, 'GET', '/v1beta/models', undefined, googleKey(key));
    expect(list.json.models.map((m: any) => m.name)).toEqual(['models/gamma-2.5-flash-lite']);
    const hidden = await call(gateway, 'GET', '/v1/models/gamma-3.1-flash-image', undefined, googleKey(key));
    expect(hidden.status).toBe(404);
    expect(hidden.json.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    const { key: chatOnly } = await createKey(gateway, { endpoints: ['chat-completions'] });
    expect((await call(gateway, 'GET', '/v1beta/models', undefined, googleKey(chatOnly))).json.models).toEqual([]);
  });

  it('answers auth failures on /v1/models paths in the envelope of the caller', async () => {
    const google = await call(gateway, 'POST', '/v1/models/gamma-2.5-flash-lite:generateContent', body, googleKey('sk-gw-wrong'));
    expect(google.status).toBe(401);
    expect(google.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    const googleList = await call(gateway, 'GET', '/v1/models', undefined, googleKey('sk-gw-wrong'));
    expect(googleList.json.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    const openai = await call(gateway, 'GET', '/v1/models', undefined, { authorization: 'Bearer sk-gw-wrong' });
    expect(openai.status).toBe(401);
    expect(openai.json.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
  });
});
