import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeForPath } from '../../src/api/envelopes.js';
import { assertEnvelope } from '../helpers/envelopes.js';
import { startTestGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';

/**
 * Generated malformed bodies against every endpoint: never a 5xx, never a dropped connection,
 * and every error in the envelope of its family (issue 2, "A property-based test").
 */
const ENDPOINTS: Array<{ path: string; valid: Record<string, unknown> }> = [
  { path: '/v1/chat/completions', valid: { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 } },
  { path: '/v1/messages', valid: { model: 'alpha-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 } },
  { path: '/v1/responses', valid: { model: 'beta-seed-2.0-mini', input: 'hi', max_output_tokens: 5 } },
  { path: '/v1/images/generations', valid: { model: 'gamma-3.1-flash-image', prompt: 'a cat', size: '256x256', response_format: 'b64_json' } },
  { path: '/v1/video/generations', valid: { model: 'zeta-1.0-r2v', prompt: 'a horse', images: ['https://example.com/a.png'], duration: 5 } },
  { path: '/videoalt/v1/videos/text2video', valid: { model_name: 'kling-v1', prompt: 'a rabbit', duration: '5' } },
  { path: '/videoalt/v1/videos/image2video', valid: { model_name: 'kling-v1', image: 'https://example.com/a.png' } },
  { path: '/videoalt/v1/videos/multi-image2video', valid: { model_name: 'kling-v1-6', image_list: [{ image: 'https://example.com/a.png' }] } },
  { path: '/cloud/asset/DeleteAsset', valid: { model: 'cloud-asset', Id: 'asset-20260528140922-d9646' } },
  { path: `/v1beta/models/gamma-2.5-flash-lite:generateContent?key=${TEST_KEY}`, valid: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } },
  {
    path: `/v1beta/models/gamma-3.1-flash-image:streamGenerateContent?alt=sse&key=${TEST_KEY}`,
    valid: { contents: [{ role: 'user', parts: [{ text: 'a cat' }] }], generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } },
  },
];

/** A valid body with one field replaced, removed or added, or something that is not a body at all. */
const mutatedBody = (valid: Record<string, unknown>) =>
  fc.oneof(
    fc.record({ key: fc.constantFrom(...Object.keys(valid), 'stream', 'n', 'parameters', '__proto__'), value: fc.jsonValue() }).map(({ key, value }) => JSON.stringify({ ...valid, [key]: value })),
    fc.constantFrom(...Object.keys(valid)).map((key) => {
      const copy = { ...valid };
      delete copy[key];
      return JSON.stringify(copy);
    }),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    fc.string({ maxLength: 40 }),
  );

describe('malformed bodies never produce a 5xx (issue 2, property-based)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it.each(ENDPOINTS)('$path', async ({ path, valid }) => {
    const kind = envelopeForPath(path);
    await fc.assert(
      fc.asyncProperty(mutatedBody(valid), async (body) => {
        const response = await fetch(gateway.url + path, {
          method: 'POST',
          headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
          body,
        });
        const text = await response.text();
        expect(response.status, `${path} ${body} → ${text.slice(0, 300)}`).toBeLessThan(500);
        if (response.status >= 400) assertEnvelope(kind, JSON.parse(text));
      }),
      { numRuns: 40 },
    );
  });
});
