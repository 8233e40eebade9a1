import { describe, expect, it } from 'vitest';
import { anthropicToChatRequest } from '../../../src/providers/chat-hub/anthropic-to-chat.js';
import { chatCompletionToAnthropic } from '../../../src/providers/chat-hub/anthropic-from-chat.js';
import { createAnthropicFromChatStream } from '../../../src/providers/chat-hub/anthropic-from-chat-stream.js';
import type { AnthropicMessagesRequest } from '../../../src/protocols/anthropic-messages/types.js';
import type { OpenAIChatChunk } from '../../../src/protocols/openai-chat/types.js';
import type { TranslateContext } from '../../../src/contracts/translator.js';

const ctx: TranslateContext = { model: 'delta-4.1', upstreamModel: 'gpt-4.1', requestId: 'req_abc', now: 1_700_000_000, includeUsage: false };

describe('Anthropic Messages → chat request (issue 20)', () => {
  it('maps system blocks, tool_use history, tool results (first in their turn) and tool images', () => {
    const req: AnthropicMessagesRequest = {
      model: 'delta-4.1',
      max_tokens: 500,
      system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'Look at the screen' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: 'Taking a screenshot.' },
            { type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: { scale: 1 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Here it is' },
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'done' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
          ],
        },
      ],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      tools: [{ name: 'screenshot', input_schema: { type: 'object' } }],
      stop_sequences: ['END'],
      metadata: { user_id: 'u1' },
      stream: true,
    };
    expect(anthropicToChatRequest(req, ctx)).toEqual({
      model: 'delta-4.1',
      max_tokens: 500,
      messages: [
        { role: 'system', content: 'A\n\nB' },
        { role: 'user', content: 'Look at the screen' },
        { role: 'assistant', content: 'Taking a screenshot.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'screenshot', arguments: '{"scale":1}' } }] },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'done' },
        { role: 'user', content: [{ type: 'text', text: 'Here it is' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
      ],
      tools: [{ type: 'function', function: { name: 'screenshot', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      stop: ['END'],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it.each([
    [{ top_k: 3 }, "'top_k'"],
    [{ container: 'c1' }, "'container'"],
    [{ messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBER' } }] }] }, "'messages[0].content[0].source'"],
    [{ messages: [{ role: 'assistant', content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] }] }, "'messages[0].content[0].type'"],
  ])('refuses what chat cannot carry (%j) with a 400 naming %s', (extra, param) => {
    const req = { model: 'delta-4.1', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }], ...extra } as AnthropicMessagesRequest;
    expect(() => anthropicToChatRequest(req, ctx)).toThrow(expect.objectContaining({ status: 400, message: expect.stringContaining(param) }));
  });
});

describe('chat completion → Anthropic message (issue 20)', () => {
  const completion = {
    id: 'chatcmpl-1',
    object: 'chat.completion' as const,
    created: 1,
    model: 'delta-4.1',
    choices: [
      {
        index: 0,
        message: { role: 'assistant' as const, content: null, reasoning_content: 'think', tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'f', arguments: '{"a":1}' } }] },
        finish_reason: 'tool_calls' as const,
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107, prompt_tokens_details: { cached_tokens: 60 } },
  };

  it('puts reasoning, text and tool calls in blocks; cache reads apart from input tokens', () => {
    expect(chatCompletionToAnthropic(completion, ctx)).toEqual({
      id: 'msg_abc',
      type: 'message',
      role: 'assistant',
      model: 'delta-4.1',
      content: [
        { type: 'thinking', thinking: 'think', signature: '' },
        { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 40, output_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 60 },
    });
  });

  it('leaves reasoning out when the client did not turn thinking on', () => {
    const message = chatCompletionToAnthropic(completion, { ...ctx, hidesReasoning: true });
    expect(message.content.map((block) => block.type)).toEqual(['tool_use']);
  });
});

describe('chat chunks → Anthropic stream events (issue 20)', () => {
  const chunk = (delta: OpenAIChatChunk['choices'][number]['delta'], finish: OpenAIChatChunk['choices'][number]['finish_reason'] = null): OpenAIChatChunk => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'delta-4.1',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

  it('opens one block at a time: thinking, text, each tool call; usage and stop reason at the end', () => {
    const stream = createAnthropicFromChatStream(ctx);
    const events = [
      ...stream.onChunk(chunk({ role: 'assistant', reasoning_content: 'Let me ' })),
      ...stream.onChunk(chunk({ reasoning_content: 'see.' })),
      ...stream.onChunk(chunk({ content: 'Calling.' })),
      ...stream.onChunk(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{"a"' } }] })),
      ...stream.onChunk(chunk({ tool_calls: [{ index: 0, function: { arguments: ':1}' } }] })),
      ...stream.onChunk(chunk({ tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'g', arguments: '{}' } }] })),
      ...stream.onChunk(chunk({}, 'tool_calls')),
      ...stream.onChunk({ ...chunk({}), choices: [], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }),
      ...stream.onEnd(),
    ];
    const summary = events.map((event) => {
      const data = event.data as { type: string; index?: number; delta?: Record<string, unknown>; content_block?: { type: string } };
      return [event.event, data.index, data.content_block?.type ?? data.delta?.type].filter((part) => part !== undefined).join(' ');
    });
    expect(summary).toEqual([
      'message_start',
      'ping',
      'content_block_start 0 thinking',
      'content_block_delta 0 thinking_delta',
      'content_block_delta 0 thinking_delta',
      'content_block_stop 0',
      'content_block_start 1 text',
      'content_block_delta 1 text_delta',
      'content_block_stop 1',
      'content_block_start 2 tool_use',
      'content_block_delta 2 input_json_delta',
      'content_block_delta 2 input_json_delta',
      'content_block_stop 2',
      'content_block_start 3 tool_use',
      'content_block_delta 3 input_json_delta',
      'content_block_stop 3',
      'message_delta',
      'message_stop',
    ]);
    expect(events.at(-2)!.data).toEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
  });
});
