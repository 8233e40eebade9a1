import { describe, expect, it } from 'vitest';
import { gemini } from '../../../src/providers/gemini/index.js';
import { imageConfigForSize } from '../../../src/providers/gemini/from-images.js';
import { OPENAI_IMAGE_SIZES, type OpenAIImagesRequest } from '../../../src/protocols/openai-images/types.js';
import { GEMINI_IMAGE_ASPECT_RATIOS } from '../../../src/protocols/gemini-generate/types.js';
import { goldenContext, loadCases } from '../../helpers/golden.js';
import { runGeminiCase } from './golden-runner.js';

const pair = gemini.pairs.images!;
const ctx = goldenContext({ model: 'gamma-3.1-flash-image', upstreamModel: 'gemini-3.1-flash-image' });

describe('images → gemini golden cases', () => {
  const cases = loadCases('gemini').filter((c) => c.meta.family === 'images');
  it('has the required cases', () => {
    expect(cases.map((c) => c.name)).toEqual(expect.arrayContaining(['images-b64', 'images-auto-size']));
  });
  for (const golden of cases) {
    it(`${golden.name}: ${golden.meta.description}`, async () => {
      await runGeminiCase(golden, pair, (body) => body as OpenAIImagesRequest);
    });
  }
});

describe('images → gemini translator', () => {
  it('maps every OpenAI size to an allowed Gemini aspect ratio with the same orientation', () => {
    for (const size of OPENAI_IMAGE_SIZES.filter((s) => s !== 'auto')) {
      const config = imageConfigForSize(size)!;
      expect(GEMINI_IMAGE_ASPECT_RATIOS).toContain(config.aspectRatio);
      const [w, h] = size.split('x').map(Number) as [number, number];
      const [rw, rh] = config.aspectRatio!.split(':').map(Number) as [number, number];
      expect(Math.abs(w / h - rw / rh)).toBeLessThan(0.05);
    }
  });

  it('a filtered image is a content-filter error, a missing image a bad upstream response', () => {
    const filtered = { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'IMAGE_SAFETY' }] };
    expect(() => pair.fromUpstream(filtered, ctx)).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_CONTENT_FILTER', status: 400 }));
    const blocked = { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } };
    expect(() => pair.fromUpstream(blocked, ctx)).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_CONTENT_FILTER' }));
    const textOnly = { candidates: [{ content: { role: 'model', parts: [{ text: 'I cannot draw that.' }] }, finishReason: 'STOP' }] };
    expect(() => pair.fromUpstream(textOnly, ctx)).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_BAD_RESPONSE', status: 502 }));
  });

  it('interim thought images are not returned as results', () => {
    const res = {
      candidates: [{ content: { role: 'model', parts: [
        { inlineData: { mimeType: 'image/png', data: 'AAAA' }, thought: true },
        { inlineData: { mimeType: 'image/png', data: 'BBBB' } },
      ] }, finishReason: 'STOP' }],
    };
    expect(pair.fromUpstream(res, ctx).body.data).toEqual([{ b64_json: 'BBBB' }]);
  });
});
