import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const base = { model: 'gamma-3.1-flash-image', prompt: 'A lighthouse', response_format: 'b64_json' };

/** [case, body, expected status, field the 400 must name] */
const CASES: Array<[string, unknown, 200 | 400, string?]> = [
  ['model missing', { prompt: 'x' }, 400, 'model'],
  ['model not an image model', { ...base, model: 'dall-e-3' }, 400, 'model'],
  ['prompt missing', { model: base.model }, 400, 'prompt'],
  ['prompt empty', { ...base, prompt: '' }, 400, 'prompt'],
  ['n 1', { ...base, n: 1 }, 200],
  ['n 10', { ...base, n: 10 }, 200],
  ['n 0', { ...base, n: 0 }, 400, 'n'],
  ['n 11', { ...base, n: 11 }, 400, 'n'],
  ['n 1.5', { ...base, n: 1.5 }, 400, 'n'],
  ['size 1792x1024', { ...base, size: '1792x1024' }, 200],
  ['size 512x512', { ...base, size: '512x512' }, 200],
  ['size 100x100', { ...base, size: '100x100' }, 400, 'size'],
  ['response_format url', { ...base, response_format: 'url' }, 200],
  ['response_format base64', { ...base, response_format: 'base64' }, 400, 'response_format'],
  ['OpenAI fields without a Gemini counterpart', { ...base, quality: 'high', style: 'vivid', user: 'u-1' }, 200],
];

describe('images validation: each bound passes, just past it is a 400 in the general envelope', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it.each(CASES)('%s', async (_name, body, status, field) => {
    const response = await call(gateway, 'POST', '/v1/images/generations', body);
    expect(response.status, response.text.slice(0, 300)).toBe(status);
    if (status === 400) {
      expect(response.json).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', code: 'invalid_parameter' } });
      expect(response.json.error.message).toContain(`'${field}'`);
    } else {
      expect(response.json.data.length).toBe((body as { n?: number }).n ?? 1);
    }
  });
});
