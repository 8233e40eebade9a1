import { describe, expect, it } from 'vitest';
import type { OutEvent } from '../../../src/contracts/sse-event.js';
import type { GeminiGenerateContentRequest } from '../../../src/protocols/gemini-generate/types.js';
import type { OpenAIChatCompletion, OpenAIChatRequest } from '../../../src/protocols/openai-chat/types.js';
import { gemini } from '../../../src/providers/gemini/index.js';
import { geminiErrorToGateway } from '../../../src/providers/gemini/wire.js';
import type { TranslatorPair } from '../../../src/contracts/translator.js';
import { clientChatStream, expectGolden, expectGoldenStream, goldenContext, loadCases } from '../../helpers/golden.js';

/**
 * Every chat-* case under test/fixtures/gemini/ through the pure translator (STYLE.md §9), via the
 * pair the provider registers for the case's family. UPDATE_GOLDEN=1 rewrites the goldens.
 */
type ChatPair = TranslatorPair<OpenAIChatRequest, OpenAIChatCompletion>;

const sse = (...chunks: unknown[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('');
const choicesOf = (out: OutEvent[]) => out.map((e) => (typeof e.data === 'string' ? e.data : (e.data as { choices: unknown[] }).choices[0]));

const cases = loadCases('gemini', (name) => name.startsWith('chat-'));

describe('chat-shaped requests → Gemini golden cases (issue 3)', () => {
  it('covers the required behaviours', () => {
    expect(cases.map((c) => c.name)).toEqual(['chat-basic', 'chat-safety-block', 'chat-stream', 'chat-stream-cut', 'chat-tool-call']);
  });

  for (const golden of cases) {
    const family = golden.meta.family as 'messages' | 'chat-completions';
    const pair: ChatPair = gemini.pairs[family]!;
    const ctx = goldenContext(golden.meta.context);

    it(`${golden.name} (${family}): ${golden.meta.description}`, async () => {
      const call = pair.toUpstream(structuredClone(golden.json('client-request.json')) as OpenAIChatRequest, ctx);
      expectGolden(golden, 'upstream-request.json', call);
      if (golden.has('upstream-stream.sse')) {
        const { out, usage } = await clientChatStream(pair, ctx, golden.text('upstream-stream.sse')!);
        await expectGoldenStream(golden, out);
        expectGolden(golden, 'usage.json', usage);
      } else {
        const { body, usage } = pair.fromUpstream(golden.json('upstream-response.json'), ctx);
        expectGolden(golden, 'client-response.json', body);
        expectGolden(golden, 'usage.json', usage);
      }
    });
  }
});

describe('Gemini chat request mapping', () => {
  const pair = gemini.pairs['chat-completions']!;
  const ctx = goldenContext({ model: 'delta-4.1', upstreamModel: 'gemini-2.5-flash-lite' });
  const request = (extra: Partial<OpenAIChatRequest>): OpenAIChatRequest => ({ model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], ...extra });
  const bodyOf = (req: OpenAIChatRequest) => pair.toUpstream(req, ctx).body as GeminiGenerateContentRequest;

  it('sends data-URL images inline, other URLs as fileData with a guessed type, and video fps as videoMetadata', () => {
    const body = bodyOf(
      request({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'text', text: '' },
              { type: 'image_url', image_url: { url: 'data:image/PNG;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.webp?size=2' } },
              { type: 'image_url', image_url: { url: 'https://example.com/photo' } },
              { type: 'video_url', video_url: { url: 'https://example.com/clip.mov', fps: 2 } },
              { type: 'video_url', video_url: { url: 'https://example.com/clip.png' } },
            ],
          },
        ],
      }),
    );
    expect(body.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What is this?' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { mimeType: 'image/webp', fileUri: 'https://example.com/cat.webp?size=2' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/photo' } },
          { fileData: { mimeType: 'video/mov', fileUri: 'https://example.com/clip.mov' }, videoMetadata: { fps: 2 } },
          { fileData: { mimeType: 'video/mp4', fileUri: 'https://example.com/clip.png' } },
        ],
      },
    ]);
  });

  it('leaves out an empty assistant reply (a replayed content_filter answer) and merges the user turns around it', () => {
    const body = bodyOf(request({ messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: '' }, { role: 'user', content: 'b' }] }));
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'a' }, { text: 'b' }] }]);
  });

  it('streams with streamGenerateContent and alt=sse; without stream it calls generateContent', () => {
    expect(pair.toUpstream(request({ stream: true }), ctx)).toMatchObject({ path: '/v1beta/models/gemini-2.5-flash-lite:streamGenerateContent', query: { alt: 'sse' } });
    const plain = pair.toUpstream(request({}), ctx);
    expect(plain).toEqual({ method: 'POST', path: '/v1beta/models/gemini-2.5-flash-lite:generateContent', body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } });
  });

  it('maps tool_choice none/auto/required and json_schema response formats', () => {
    const tools = [{ type: 'function' as const, function: { name: 'lookup' } }];
    expect(bodyOf(request({ tools, tool_choice: 'none' })).toolConfig).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(bodyOf(request({ tools, tool_choice: 'auto' })).toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(bodyOf(request({ tools, tool_choice: 'required' })).toolConfig).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(bodyOf(request({ tools })).tools).toEqual([{ functionDeclarations: [{ name: 'lookup' }] }]);
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(bodyOf(request({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } })).generationConfig).toEqual({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
  });

  it.each([
    ['a tool result for an unknown call', request({ messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] }), 'messages[0].tool_call_id'],
    [
      'tool arguments that are not a JSON object',
      request({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '[1]' } }] }] }),
      'messages[1].tool_calls[0].function.arguments',
    ],
    ['only system messages', request({ messages: [{ role: 'system', content: 'x' }] }), 'messages'],
    ['an empty user message', request({ messages: [{ role: 'user', content: '' }] }), 'messages[0].content'],
    ['an image in a system message', request({ messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }, { role: 'user', content: 'x' }] }), 'messages[0].content[0]'],
    ['parallel_tool_calls false', request({ parallel_tool_calls: false }), 'parallel_tool_calls'],
    ['deprecated functions', request({ functions: [{ name: 'f' }] }), 'functions'],
    ['logprobs', request({ logprobs: true }), 'logprobs'],
    ['tool_choice required without tools', request({ tool_choice: 'required' }), 'tool_choice'],
    ['tool_choice naming an undeclared function', request({ tools: [{ type: 'function', function: { name: 'a' } }], tool_choice: { type: 'function', function: { name: 'b' } } }), 'tool_choice.function.name'],
    ['json_schema without a schema', request({ response_format: { type: 'json_schema', json_schema: { name: 'x' } } }), 'response_format.json_schema.schema'],
  ])('refuses %s with a 400 naming the field', (_label, req, param) => {
    expect(() => pair.toUpstream(req, ctx)).toThrow(expect.objectContaining({ code: 'GW_REQ_INVALID_PARAM', status: 400, param }));
  });
});

describe('Gemini chat response mapping', () => {
  const pair = gemini.pairs['chat-completions']!;
  const ctx = goldenContext({ model: 'delta-4.1', upstreamModel: 'gemini-2.5-flash-lite' });
  const finish = (finishReason: string, parts: unknown[] = [{ text: 'x' }]) =>
    pair.fromUpstream({ candidates: [{ content: { role: 'model', parts }, finishReason, index: 0 }] }, ctx).body.choices[0]!.finish_reason;

  it('maps every finishReason of the SDK enum, and unknown ones to stop', () => {
    const reasons = [
      'FINISH_REASON_UNSPECIFIED', 'STOP', 'MAX_TOKENS', 'SAFETY', 'RECITATION', 'LANGUAGE', 'OTHER', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII',
      'MALFORMED_FUNCTION_CALL', 'IMAGE_SAFETY', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS', 'IMAGE_PROHIBITED_CONTENT', 'NO_IMAGE',
      'IMAGE_RECITATION', 'IMAGE_OTHER', 'SOMETHING_NEW',
    ];
    expect(reasons.map((r) => finish(r))).toEqual([
      'stop', 'stop', 'length', 'content_filter', 'content_filter', 'stop', 'stop', 'content_filter', 'content_filter', 'content_filter',
      'stop', 'content_filter', 'stop', 'stop', 'content_filter', 'stop', 'content_filter', 'stop', 'stop',
    ]);
  });

  it('a function call turns STOP into tool_calls but leaves a length or filter stop alone', () => {
    const call = [{ functionCall: { name: 'f', args: {} } }];
    expect([finish('STOP', call), finish('MAX_TOKENS', call), finish('SAFETY', call)]).toEqual(['tool_calls', 'length', 'content_filter']);
  });

  it('gives each candidate its own choice (n > 1) and keeps an upstream function call id', () => {
    const { body } = pair.fromUpstream(
      {
        candidates: [
          { content: { role: 'model', parts: [{ text: 'a' }] }, finishReason: 'STOP', index: 0 },
          { content: { role: 'model', parts: [{ functionCall: { id: 'fc_up', name: 'f', args: { q: 1 } } }] }, finishReason: 'STOP', index: 1 },
        ],
      },
      ctx,
    );
    expect(body.id).toBe('chatcmpl-req_golden');
    expect(body.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'a' }, finish_reason: 'stop' },
      {
        index: 1,
        message: { role: 'assistant', content: null, tool_calls: [{ id: 'fc_up', type: 'function', function: { name: 'f', arguments: '{"q":1}' } }] },
        finish_reason: 'tool_calls',
      },
    ]);
  });

  it('a response with neither candidates nor a block reason is a bad upstream response', () => {
    expect(() => pair.fromUpstream({ usageMetadata: {} }, ctx)).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_BAD_RESPONSE' }));
    expect(() => pair.fromUpstream([], ctx)).toThrow(expect.objectContaining({ code: 'GW_UPSTREAM_BAD_RESPONSE' }));
  });

  it('shares the provider error mapping: a rejected channel key is a 502, never the upstream reason', () => {
    expect(pair.fromUpstreamError).toBe(geminiErrorToGateway);
    const error = pair.fromUpstreamError(400, {
      error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }] },
    });
    expect({ status: error.status, code: error.code }).toEqual({ status: 502, code: 'GW_UPSTREAM_AUTH' });
  });
});

describe('Gemini chat stream translator', () => {
  const pair = gemini.pairs['chat-completions']!;
  const ctx = goldenContext({ model: 'delta-4.1', upstreamModel: 'gemini-2.5-flash-lite' });

  it('sends a function call as one tool_calls delta and finishes with tool_calls', async () => {
    const { out } = await clientChatStream(pair, ctx, sse({ candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'x' } } }] }, finishReason: 'STOP', index: 0 }] }));
    expect(choicesOf(out)).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
      { index: 0, delta: { tool_calls: [{ index: 0, id: 'call_req_golden_0_0', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] }, finish_reason: null },
      { index: 0, delta: {}, finish_reason: 'tool_calls' },
      '[DONE]',
    ]);
  });

  it('interleaves two candidates and completes only when both finished', async () => {
    const a = (finishReason?: string) => ({ content: { parts: [{ text: 'a' }] }, index: 0, ...(finishReason ? { finishReason } : {}) });
    const b = (finishReason?: string) => ({ content: { parts: [{ text: 'b' }] }, index: 1, ...(finishReason ? { finishReason } : {}) });
    const complete = await clientChatStream(pair, ctx, sse({ candidates: [a(), b()] }, { candidates: [a('STOP'), b('MAX_TOKENS')] }));
    expect(choicesOf(complete.out).filter((c) => typeof c === 'object' && (c as { finish_reason: unknown }).finish_reason)).toEqual([
      { index: 0, delta: {}, finish_reason: 'stop' },
      { index: 1, delta: {}, finish_reason: 'length' },
    ]);
    expect(complete.out.at(-1)).toEqual({ data: '[DONE]' });
    const halfCut = await clientChatStream(pair, ctx, sse({ candidates: [a(), b()] }, { candidates: [a('STOP')] }));
    expect(halfCut.out.at(-1)).toEqual({ data: { error: { code: 'upstream_error', message: expect.stringContaining('ended before') } } });
  });

  it('a blocked prompt streams an empty content_filter choice, then [DONE]', async () => {
    const { out, usage } = await clientChatStream(pair, ctx, sse({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } }));
    expect(choicesOf(out)).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
      { index: 0, delta: {}, finish_reason: 'content_filter' },
      '[DONE]',
    ]);
    expect(usage).toEqual({ promptTokens: 5, completionTokens: 0, reasoningTokens: 0, totalTokens: 5 });
  });

  it('an error object mid-stream ends the stream with the mapped chat error event', async () => {
    const { out } = await clientChatStream(
      pair,
      ctx,
      sse({ candidates: [{ content: { parts: [{ text: 'a' }] }, index: 0 }] }, { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } }),
    );
    expect(out.at(-1)).toEqual({ data: { error: { code: 'upstream_rate_limited', message: expect.any(String) } } });
  });
});

describe('Gemini 3 thought signatures round-trip through chat (issue 14)', () => {
  const pair: ChatPair = gemini.pairs['chat-completions']!;
  const ctx = goldenContext({ model: 'beta-seed-2.0-pro', upstreamModel: 'gemini-3-pro-preview' });
  const call = { name: 'get_weather', args: { city: 'Paris' } };
  const answer = { candidates: [{ content: { role: 'model', parts: [{ functionCall: call, thoughtSignature: 'sig-abc' }] }, finishReason: 'STOP', index: 0 }] };

  it('puts the signature on the tool call, where Google\'s OpenAI-compatible API does', () => {
    const { body } = pair.fromUpstream(answer, ctx);
    expect(body.choices[0]!.message.tool_calls![0]!.extra_content).toEqual({ google: { thought_signature: 'sig-abc' } });
  });

  it('streams it with the tool call delta', async () => {
    const { out } = await clientChatStream(pair, ctx, sse(answer));
    const delta = choicesOf(out).find((c) => typeof c === 'object' && (c as any).delta?.tool_calls) as any;
    expect(delta.delta.tool_calls[0].extra_content).toEqual({ google: { thought_signature: 'sig-abc' } });
  });

  it('sends it back on the functionCall part of the next turn', () => {
    const { body: first } = pair.fromUpstream(answer, ctx);
    const assistant = first.choices[0]!.message;
    const next = pair.toUpstream(
      {
        model: 'beta-seed-2.0-pro',
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: assistant.tool_calls },
          { role: 'tool', tool_call_id: assistant.tool_calls![0]!.id, content: '18 C' },
        ],
      },
      ctx,
    );
    const contents = (next.body as GeminiGenerateContentRequest).contents;
    expect(contents[1]!.parts[0]).toEqual({ functionCall: call, thoughtSignature: 'sig-abc' });
  });
});
