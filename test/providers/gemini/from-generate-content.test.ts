import { describe, expect, it } from 'vitest';
import { gemini } from '../../../src/providers/gemini/index.js';
import type { GeminiGenerateContentRequest, GeminiMethod } from '../../../src/protocols/gemini-generate/types.js';
import { goldenContext, loadCases, runStream } from '../../helpers/golden.js';
import { runGeminiCase } from './golden-runner.js';

const pair = gemini.pairs['generate-content']!;
const ctx = goldenContext({ model: 'gamma-3.1-flash-image', upstreamModel: 'gemini-3.1-flash-image' });
const sse = (...chunks: unknown[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('');

describe('generate-content → gemini golden cases (spec §8, §9)', () => {
  const cases = loadCases('gemini', (name) => !name.startsWith('images-')).filter((c) => c.meta.family === 'generate-content');
  it('has the required cases', () => {
    expect(cases.map((c) => c.name)).toEqual(expect.arrayContaining(['generate-basic', 'stream-image', 'error-429']));
  });
  for (const golden of cases) {
    it(`${golden.name}: ${golden.meta.description}`, async () => {
      const method = (golden.meta as { method?: GeminiMethod }).method ?? 'generateContent';
      await runGeminiCase(golden, pair, (body) => ({ method, body: body as GeminiGenerateContentRequest }));
    });
  }
});

describe('generate-content stream translator', () => {
  it('a stream that ends without a finishReason is an error, never a quiet finish', async () => {
    const translator = pair.createStreamTranslator(ctx);
    const cut = sse({ candidates: [{ content: { role: 'model', parts: [{ text: 'thinking', thought: true }] }, index: 0 }] });
    await expect(runStream(translator, cut)).rejects.toThrow(/ended before/);
  });

  it('an error event mid-stream becomes a gateway error with Gemini status mapped', async () => {
    const translator = pair.createStreamTranslator(ctx);
    const failing = sse({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } });
    await expect(runStream(translator, failing)).rejects.toMatchObject({ code: 'GW_UPSTREAM_UNAVAILABLE', status: 503 });
  });

  it('a blocked prompt passes its promptFeedback chunk on, then usage', async () => {
    const translator = pair.createStreamTranslator(ctx);
    const out = await runStream(translator, sse({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } }));
    expect(out.map((e) => Object.keys(e.data as object).sort())).toEqual([
      ['createTime', 'modelVersion', 'promptFeedback', 'responseId'],
      ['createTime', 'modelVersion', 'responseId', 'usageMetadata'],
    ]);
    expect(out[0]!.data).toMatchObject({ responseId: 'req_golden', createTime: '2023-11-14T22:13:20.000Z', modelVersion: 'gamma-3.1-flash-image' });
  });

  it('a finish-only chunk that cannot be matched to a held candidate is sent as its own chunk', async () => {
    const translator = pair.createStreamTranslator(ctx);
    const out = await runStream(
      translator,
      sse(
        { candidates: [{ content: { parts: [{ text: 'a' }] }, index: 0 }] },
        { candidates: [{ content: { parts: [] }, finishReason: 'STOP', index: 1 }] },
      ),
    );
    expect(out).toHaveLength(2);
  });

  it('asks for SSE framing upstream and never forwards the client key', () => {
    const call = pair.toUpstream({ method: 'streamGenerateContent', body: { contents: [{ parts: [{ text: 'x' }] }] } }, ctx);
    expect(call).toEqual({ method: 'POST', path: '/v1beta/models/gemini-3.1-flash-image:streamGenerateContent', query: { alt: 'sse' }, body: { contents: [{ parts: [{ text: 'x' }] }] } });
  });
});
