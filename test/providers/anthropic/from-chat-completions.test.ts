import { describe, expect, it } from 'vitest';
import type { OpenAIChatRequest } from '../../../src/protocols/openai-chat/types.js';
import { anthropic } from '../../../src/providers/anthropic/index.js';
import type { TranslatorPair } from '../../../src/contracts/translator.js';
import type { OpenAIChatCompletion } from '../../../src/protocols/openai-chat/types.js';
import { clientChatStream, expectGolden, expectGoldenStream, goldenContext, loadCases } from '../../helpers/golden.js';

/**
 * Every case under test/fixtures/anthropic/ through the pure translator (STYLE.md §9), via the
 * pair the provider registers for the case's family. UPDATE_GOLDEN=1 rewrites the goldens.
 */
type ChatPair = TranslatorPair<OpenAIChatRequest, OpenAIChatCompletion>;

const cases = loadCases('anthropic');

describe('chat-shaped requests → Anthropic golden cases', () => {
  it('covers the required behaviours', () => {
    expect(cases.map((c) => c.name)).toEqual(expect.arrayContaining(['chat-basic', 'chat-stream', 'chat-stop-sequence', 'chat-error-529']));
  });

  for (const golden of cases) {
    const family = golden.meta.family as 'messages' | 'chat-completions';
    const pair: ChatPair = anthropic.pairs[family]!;
    const ctx = goldenContext(golden.meta.context);

    it(`${golden.name} (${family}): ${golden.meta.description}`, async () => {
      const call = pair.toUpstream(structuredClone(golden.json('client-request.json')) as OpenAIChatRequest, ctx);
      expectGolden(golden, 'upstream-request.json', call);

      if (golden.has('upstream-stream.sse')) {
        const { out, usage } = await clientChatStream(pair, ctx, golden.text('upstream-stream.sse')!);
        await expectGoldenStream(golden, out);
        expectGolden(golden, 'usage.json', usage);
      } else if (golden.has('client-error.json')) {
        const expected = golden.json('client-error.json') as { status: number; code: string; messageContains?: string };
        const error = pair.fromUpstreamError(golden.meta.status!, golden.json('upstream-response.json'));
        expect({ status: error.status, code: error.code }).toEqual({ status: expected.status, code: expected.code });
        if (expected.messageContains) expect(error.message).toContain(expected.messageContains);
        expect(error.message).not.toMatch(/req_011|overloaded_error/);
      } else {
        const { body, usage } = pair.fromUpstream(golden.json('upstream-response.json'), ctx);
        expectGolden(golden, 'client-response.json', body);
        expectGolden(golden, 'usage.json', usage);
      }
    });
  }
});

describe('Anthropic stream translator edge cases', () => {
  const pair = anthropic.pairs.messages!;
  const frame = (data: object) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;
  const start = frame({ type: 'message_start', message: { id: 'msg_x', type: 'message', role: 'assistant', content: [], model: 'm', stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } });

  it('skips unknown event types and content blocks it has no counterpart for', async () => {
    const sse =
      start +
      frame({ type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 's', name: 'web_search', input: {} } }) +
      frame({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"q":1}' } }) +
      frame({ type: 'some_future_event', detail: 1 }) +
      frame({ type: 'message_delta', delta: { stop_reason: 'pause_turn', stop_sequence: null }, usage: { output_tokens: 4 } }) +
      frame({ type: 'message_stop' });
    const { out, usage } = await clientChatStream(pair, goldenContext(), sse);
    expect(out.map((e) => (e.data as { choices?: Array<{ delta: object; finish_reason: string | null }> }).choices?.[0])).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
      { index: 0, delta: {}, finish_reason: 'stop' },
      undefined,
    ]);
    expect(usage).toEqual({ promptTokens: 3, completionTokens: 4, reasoningTokens: 0, totalTokens: 7 });
  });

  it('fails on an event that is not JSON, with a bad-response error event', async () => {
    const { out } = await clientChatStream(pair, goldenContext(), start + 'event: content_block_delta\ndata: {nope\n\n');
    expect(out.at(-1)).toEqual({ data: { error: { code: 'upstream_bad_response', message: expect.stringContaining('not JSON') } } });
  });

  it.each([
    ['rate_limit_error', 'GW_UPSTREAM_RATE_LIMITED'],
    ['api_error', 'GW_UPSTREAM_ERROR'],
    ['overloaded_error', 'GW_UPSTREAM_UNAVAILABLE'],
    ['invalid_request_error', 'GW_UPSTREAM_BAD_REQUEST'],
    ['something_new', 'GW_UPSTREAM_ERROR'],
  ])('maps a mid-stream %s error event to %s', (type, code) => {
    const translator = pair.createStreamTranslator(goldenContext());
    expect(() => translator.onEvent({ event: 'error', data: JSON.stringify({ type: 'error', error: { type, message: 'x' } }) })).toThrow(
      expect.objectContaining({ code }),
    );
  });
});

describe('Anthropic request mapping edge cases', () => {
  const pair = anthropic.pairs['chat-completions']!;
  const ctx = goldenContext({ upstreamModel: 'claude-sonnet-4-5-20250929' });

  it('sends images as base64 or URL sources and refuses video parts naming the part', () => {
    const call = pair.toUpstream(
      {
        model: 'x',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
            ],
          },
        ],
      },
      ctx,
    );
    expect((call.body as { messages: unknown[] }).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
    expect(() =>
      pair.toUpstream({ model: 'x', messages: [{ role: 'user', content: [{ type: 'video_url', video_url: { url: 'https://example.com/v.mp4' } }] }] }, ctx),
    ).toThrow(expect.objectContaining({ code: 'GW_REQ_INVALID_PARAM', param: 'messages[0].content[0]' }));
  });

  it('prefers max_completion_tokens, then max_tokens, then 8192', () => {
    const maxTokens = (req: Partial<OpenAIChatRequest>) =>
      (pair.toUpstream({ model: 'x', messages: [{ role: 'user', content: 'hi' }], ...req }, ctx).body as { max_tokens: number }).max_tokens;
    expect(maxTokens({ max_completion_tokens: 10, max_tokens: 20 })).toBe(10);
    expect(maxTokens({ max_tokens: 20 })).toBe(20);
    expect(maxTokens({})).toBe(8192);
  });

  it('joins several system and developer messages into one system prompt', () => {
    const call = pair.toUpstream(
      { model: 'x', messages: [{ role: 'system', content: 'A' }, { role: 'user', content: 'hi' }, { role: 'developer', content: 'B' }] },
      ctx,
    );
    expect(call.body).toMatchObject({ system: 'A\n\nB', messages: [{ role: 'user', content: 'hi' }] });
  });

  it('maps every stop_reason to a finish_reason', () => {
    const finish = (stop_reason: string) =>
      pair.fromUpstream({ id: 'm', type: 'message', role: 'assistant', model: 'c', content: [], stop_reason, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }, ctx)
        .body.choices[0]!.finish_reason;
    expect(
      ['end_turn', 'stop_sequence', 'max_tokens', 'model_context_window_exceeded', 'tool_use', 'refusal', 'pause_turn', 'brand_new'].map(finish),
    ).toEqual(['stop', 'stop', 'length', 'length', 'tool_calls', 'content_filter', 'stop', 'stop']);
  });

  it('rejects a response without content as a bad upstream response', () => {
    expect(() => pair.fromUpstream({ type: 'message' }, ctx)).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_BAD_RESPONSE' }));
  });
});
