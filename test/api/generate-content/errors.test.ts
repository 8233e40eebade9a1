import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, GoogleGenAI } from '@google/genai';
import { startSimulator } from '../../../src/simulator/server.js';
import { createGeminiSimulator } from '../../../src/providers/gemini/simulator.js';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const LITE = '/v1beta/models/gamma-2.5-flash-lite:generateContent';
const IMAGE = '/v1beta/models/gamma-3.1-flash-image:streamGenerateContent';
const body = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
const googleError = (code: number, status: string) => ({ error: { code, message: expect.any(String), status } });

describe('native endpoints: auth, routing and upstream faults (spec "Errors")', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());
  const simulator = () => gateway.deps.simulators.get('simulator-gemini')!;

  it('takes the key from ?key= or the x-goog-api-key header', async () => {
    expect((await call(gateway, 'POST', `${LITE}?key=${TEST_KEY}`, body, {})).status).toBe(200);
    expect((await call(gateway, 'POST', LITE, body, { 'x-goog-api-key': TEST_KEY })).status).toBe(200);
  });

  it('answers a missing or invalid key with 401 in the google envelope', async () => {
    for (const [path, headers] of [
      [LITE, {}],
      [`${LITE}?key=sk-gw-wrong`, {}],
      [IMAGE, { 'x-goog-api-key': 'sk-gw-wrong' }],
    ] as const) {
      const response = await call(gateway, 'POST', path, body, headers);
      expect(response.status).toBe(401);
      expect(response.json).toEqual(googleError(401, 'UNAUTHENTICATED'));
    }
    const sdk = new GoogleGenAI({ apiKey: 'sk-gw-wrong', httpOptions: { baseUrl: gateway.url } });
    const failure = await sdk.models.generateContent({ model: 'gamma-2.5-flash-lite', contents: 'Hi' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(401);
  });

  it('gives any other model:method combination a 404 NOT_FOUND', async () => {
    for (const path of [
      '/v1beta/models/gamma-2.5-flash-lite:embedContent',
      '/v1beta/models/gamma-3.1-flash-image:predict',
      '/v1beta/models/delta-4.1:generateContent',
      '/v1/models/delta-4.1:generateContent',
      '/v1/models/gamma-2.5-flash-lite:embedContent',
    ]) {
      const response = await call(gateway, 'POST', `${path}?key=${TEST_KEY}`, body, {});
      expect(response.status, path).toBe(404);
      expect(response.json).toEqual(googleError(404, 'NOT_FOUND'));
    }
  });

  it('maps upstream 429 to 429 RESOURCE_EXHAUSTED and 503 to 503 UNAVAILABLE, on both endpoints', async () => {
    for (const [fault, status, grpc] of [[429, 429, 'RESOURCE_EXHAUSTED'], [503, 503, 'UNAVAILABLE']] as const) {
      for (const path of [LITE, IMAGE]) {
        simulator().setOptions({ fault_status: fault, fault_times: 1 });
        const response = await call(gateway, 'POST', `${path}?key=${TEST_KEY}`, body, {});
        expect(response.status, `${fault} ${path}`).toBe(status);
        expect(response.json).toEqual(googleError(status, grpc));
        expect(response.text).not.toMatch(/127\.0\.0\.1|simulator-key|Simulated/);
      }
    }
    simulator().setOptions({});
  });

  it('ends a stream that breaks after its first byte with a google error event', async () => {
    simulator().setOptions({ cut_stream_after: 2 });
    try {
      const response = await call(gateway, 'POST', `${IMAGE}?key=${TEST_KEY}`, body, {});
      expect(response.status).toBe(200);
      const events = response.text.split('\n\n').filter(Boolean).map((e) => JSON.parse(e.replace(/^data: /, '')) as Record<string, unknown>);
      expect(events.at(-1)).toEqual(googleError(502, 'UNAVAILABLE'));
      expect(events.slice(0, -1).every((e) => e.candidates !== undefined)).toBe(true);
    } finally {
      simulator().setOptions({});
    }
  });

  it('a channel whose Gemini key is refused upstream (400 API_KEY_INVALID) is a 502 UNAVAILABLE, not a client error', async () => {
    const upstream = await startSimulator(createGeminiSimulator());
    const badKey = await startTestGateway({
      file: { channels: [{ name: 'gemini-bad-key', vendor: 'gemini', base_url: upstream.url, api_key: ' ', models: { 'gamma-2.5-flash-lite': 'gemini-2.5-flash-lite' } }] },
    });
    try {
      const response = await call(badKey, 'POST', `${LITE}?key=${TEST_KEY}`, body, {});
      expect(upstream.requests.at(-1)!.path).toBe('/v1beta/models/gemini-2.5-flash-lite:generateContent');
      expect(response.status).toBe(502);
      expect(response.json).toEqual(googleError(502, 'UNAVAILABLE'));
      expect(response.text).not.toMatch(/API key not valid|API_KEY_INVALID/);
    } finally {
      await badKey.stop();
      await upstream.close();
    }
  });
});
