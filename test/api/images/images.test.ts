import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { PNG } from 'pngjs';
import { call, startTestGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';

const MODEL = 'gamma-3.1-flash-image';
const decode = (b64: string) => PNG.sync.read(Buffer.from(b64, 'base64'));

describe('POST /v1/images/generations (OpenAI Images shape, Gemini upstream)', () => {
  let gateway: TestGateway;
  let client: OpenAI;
  beforeAll(async () => {
    gateway = await startTestGateway();
    client = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => gateway.stop());
  const simulator = () => gateway.deps.simulators.get('simulator-gemini')!;

  it('openai images.generate with b64_json returns PNGs of the requested aspect ratio', async () => {
    for (const [size, ratio] of [['1536x1024', 3 / 2], ['1024x1792', 9 / 16], ['256x256', 1]] as const) {
      const result = await client.images.generate({ model: MODEL, prompt: 'A lighthouse at dusk', size, response_format: 'b64_json' });
      expect(result.created).toEqual(expect.any(Number));
      expect(result.data).toHaveLength(1);
      const png = decode(result.data![0]!.b64_json!);
      expect(png.width / png.height).toBeCloseTo(ratio, 2);
      expect(result.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    }
    const sent = simulator().requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-3.1-flash-image:generateContent');
    expect(sent.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'A lighthouse at dusk' }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '1:1', imageSize: '512' } },
    });
  });

  it('answers a public URL and, by default only, the same image inline; the URL serves the PNG without a key (issue 16)', async () => {
    const result = await client.images.generate({ model: MODEL, prompt: 'A red kite', size: '1024x1024' });
    const url = result.data![0]!.url!;
    expect(url).toMatch(new RegExp(`^${gateway.url}/media/images/[A-Za-z0-9_-]{32}\\.png$`));
    const inline = Buffer.from(result.data![0]!.b64_json!, 'base64');
    const asked = await client.images.generate({ model: MODEL, prompt: 'A red kite', size: '1024x1024', response_format: 'url' });
    expect(asked.data![0]!.b64_json).toBeUndefined();
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const served = Buffer.from(await response.arrayBuffer());
    expect(served.equals(inline)).toBe(true);
    const png = PNG.sync.read(served);
    expect([png.width, png.height]).toEqual([1024, 1024]);
    expect(readdirSync(join(gateway.dataDir, 'media', 'images'))).toContain(url.split('/').at(-1));
  });

  it('stream: true answers OpenAI image stream events the SDK reads, one completed image each (issue 14)', async () => {
    const stream = await client.images.generate({ model: MODEL, prompt: 'A lighthouse at dusk', size: '1536x1024', n: 2, stream: true });
    const events: Array<{ type: string; b64_json?: string }> = [];
    for await (const event of stream) events.push(event as never);
    expect(events.map((e) => e.type)).toEqual(['image_generation.completed', 'image_generation.completed']);
    const png = decode(events[0]!.b64_json!);
    expect(png.width / png.height).toBeCloseTo(3 / 2, 2);
  });

  it('n images come from n upstream calls, with usage summed', async () => {
    const before = simulator().requests.length;
    const one = await call(gateway, 'POST', '/v1/images/generations', { model: MODEL, prompt: 'A boat', response_format: 'b64_json' });
    const three = await call(gateway, 'POST', '/v1/images/generations', { model: MODEL, prompt: 'A boat', n: 3, response_format: 'b64_json' });
    expect(three.status).toBe(200);
    expect(three.json.data).toHaveLength(3);
    expect(simulator().requests.length - before).toBe(4);
    expect(three.json.usage.total_tokens).toBe(3 * one.json.usage.total_tokens);
  });

  it('size auto sends no imageConfig upstream', async () => {
    const response = await call(gateway, 'POST', '/v1/images/generations', { model: MODEL, prompt: 'A kite', size: 'auto', response_format: 'b64_json' });
    expect(response.status).toBe(200);
    expect(simulator().requests.at(-1)!.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'A kite' }] }], generationConfig: { responseModalities: ['IMAGE'] } });
  });

  it('media links are unguessable names only: anything else is a 404, never a file outside the folder', async () => {
    for (const path of [
      '/media/images/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA.png',
      '/media/images/..%2F..%2Fgateway.sqlite',
      '/media/images/%2E%2E%2Fgateway.sqlite',
      '/media/images/gateway.sqlite',
    ]) {
      const response = await call(gateway, 'GET', path, undefined, {});
      expect(response.status, path).toBe(404);
      expect(response.json.error).toEqual({ message: expect.any(String), type: 'invalid_request_error', code: 'not_found' });
    }
  });

  it('a missing or invalid key is a 401 in the general envelope', async () => {
    const response = await call(gateway, 'POST', '/v1/images/generations', { model: MODEL, prompt: 'x' }, {});
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ error: { message: expect.any(String), type: 'authentication_error', code: 'invalid_api_key' } });
    const sdk = new OpenAI({ apiKey: 'sk-gw-wrong', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await expect(sdk.images.generate({ model: MODEL, prompt: 'x' })).rejects.toMatchObject({ status: 401 });
  });

  it('upstream 429 and 503 keep their status in the general envelope', async () => {
    for (const [fault, code] of [[429, 'upstream_rate_limited'], [503, 'upstream_unavailable']] as const) {
      simulator().setOptions({ fault_status: fault, fault_times: 1 });
      const response = await call(gateway, 'POST', '/v1/images/generations', { model: MODEL, prompt: 'x' });
      expect(response.status).toBe(fault);
      expect(response.json.error).toEqual({ message: expect.any(String), type: expect.any(String), code });
    }
    simulator().setOptions({});
  });
});
