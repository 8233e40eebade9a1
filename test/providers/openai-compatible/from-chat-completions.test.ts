import { describe, expect, it } from 'vitest';
import { openai } from '../../../src/providers/openai/index.js';
import { volcengineArk } from '../../../src/providers/volcengine-ark/index.js';
import { zhipu } from '../../../src/providers/zhipu/index.js';
import type { OpenAIChatRequest } from '../../../src/protocols/openai-chat/types.js';
import { goldenContext, loadCases, parseGoldenStream, runStream } from '../../helpers/golden.js';

/** The golden cases of every OpenAI-compatible vendor, through the pure chat translator. */
const vendors = [
  ['openai', openai],
  ['volcengine-ark', volcengineArk],
  ['zhipu', zhipu],
] as const;

describe.each(vendors)('chat-completions → %s golden cases (issue 3)', (vendor, provider) => {
  const pair = provider.pairs['chat-completions']!;
  for (const golden of loadCases(vendor, (name) => name.startsWith('chat-'))) {
    const ctx = goldenContext(golden.meta.context);
    it(`${golden.name}: ${golden.meta.description}`, async () => {
      if (golden.has('client-request.json')) {
        const call = pair.toUpstream(golden.json('client-request.json') as OpenAIChatRequest, ctx);
        expect({ method: call.method, path: call.path, body: call.body }).toEqual(golden.json('upstream-request.json'));
      }
      if (golden.has('client-response.json')) {
        const { body, usage } = pair.fromUpstream(golden.json('upstream-response.json'), ctx);
        expect(body).toEqual(golden.json('client-response.json'));
        expect(usage).toEqual(golden.json('usage.json'));
        // The text fast path, where it applies, must give exactly what parsing gives.
        const fast = pair.fromUpstreamText!(JSON.stringify(golden.json('upstream-response.json')), ctx);
        if (fast) {
          expect(JSON.parse(fast.text)).toEqual(golden.json('client-response.json'));
          expect(fast.usage).toEqual(golden.json('usage.json'));
        }
        expect(fast === undefined).toBe(golden.name === 'chat-sensitive');
      }
      if (golden.has('client-stream.sse')) {
        const translator = pair.createStreamTranslator(ctx);
        expect(await runStream(translator, golden.text('upstream-stream.sse')!)).toEqual(await parseGoldenStream(golden.text('client-stream.sse')!));
        expect(translator.usage()).toEqual(golden.json('usage.json'));
      }
      if (golden.has('client-error.json')) {
        const expected = golden.json('client-error.json') as { status: number; code: string; messageContains?: string };
        const error = pair.fromUpstreamError(golden.meta.status!, golden.json('upstream-response.json'));
        expect({ status: error.status, code: error.code }).toEqual({ status: expected.status, code: expected.code });
        if (expected.messageContains) expect(error.message).toContain(expected.messageContains);
        expect(error.message).not.toMatch(/org-abc|Request ID: \d{6,}/);
      }
    });
  }

  it('a stream that ends without [DONE] is an error, never a quiet finish', async () => {
    const translator = pair.createStreamTranslator(goldenContext());
    await expect(runStream(translator, 'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n')).rejects.toThrow(/ended before/);
  });
});
