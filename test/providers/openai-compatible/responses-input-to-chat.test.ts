import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/errors.js';
import type { OpenAIResponsesInputItem } from '../../../src/protocols/openai-responses/input-items.js';
import { inputItemsToChatMessages } from '../../../src/providers/openai-compatible/responses-input-to-chat.js';

const ZHIPU_LIKE = { developerRoleAs: 'system', takesReasoningContent: true } as const;
const OPENAI_LIKE = { developerRoleAs: 'developer', takesReasoningContent: false } as const;

/** A Codex turn's history as it resends it: instructions, prompt, reasoning, preamble, calls, outputs, answer. */
const codexHistory: OpenAIResponsesInputItem[] = [
  { type: 'message', id: 'msg_dev', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
  { type: 'message', id: 'msg_u1', role: 'user', content: [{ type: 'input_text', text: 'List files' }] },
  { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'I should run ls.' }], content: null, encrypted_content: 'gAAAA-opaque' },
  { type: 'message', status: 'completed', id: 'msg_a1', role: 'assistant', content: [{ type: 'output_text', text: 'Listing them now.', annotations: [] }] },
  { type: 'function_call', status: 'completed', id: 'fc_1', name: 'exec_command', arguments: '{"cmd":"ls"}', call_id: 'call_1' },
  { type: 'function_call', status: 'completed', id: 'fc_2', name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: '{}', call_id: 'call_2' },
  { type: 'function_call_output', id: 'fco_1', call_id: 'call_1', output: 'a.txt\nb.txt' },
  { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'agent-1' }, { type: 'input_text', text: 'started' }] },
  { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'ls flags' } },
  { type: 'reasoning', id: 'rs_2', summary: [], content: [{ type: 'reasoning_text', text: 'Raw thought.' }], encrypted_content: null },
  { type: 'message', id: 'msg_a2', role: 'assistant', content: [{ type: 'output_text', text: 'Two files.' }, { type: 'refusal', refusal: ' No more.' }] },
  { type: 'message', id: 'msg_u2', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
];

/** The chat form of a Responses history (issue 20): what a chat upstream can take, in order. */
describe('inputItemsToChatMessages', () => {
  it('a Codex history: assistant turns with their reasoning, calls joined to the preceding text, namespaced names, tool messages', () => {
    expect(inputItemsToChatMessages(codexHistory, ZHIPU_LIKE)).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'You are Codex.' }] },
      { role: 'user', content: [{ type: 'text', text: 'List files' }] },
      {
        role: 'assistant',
        content: 'Listing them now.',
        reasoning_content: 'I should run ls.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"ls"}' } },
          { id: 'call_2', type: 'function', function: { name: 'multi_agent_v1--spawn_agent', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.txt\nb.txt' },
      { role: 'tool', tool_call_id: 'call_2', content: 'agent-1\nstarted' },
      { role: 'assistant', content: 'Two files. No more.', reasoning_content: 'Raw thought.' },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]);
  });

  it('where the vendor takes no reasoning back, reasoning items are left out; encrypted_content never reaches a chat upstream', () => {
    const messages = inputItemsToChatMessages(codexHistory, OPENAI_LIKE);
    expect(messages[0]!.role).toBe('developer');
    expect(messages.some((m) => 'reasoning_content' in m)).toBe(false);
    expect(JSON.stringify(messages)).not.toContain('gAAAA');
  });

  it('a call without text before it opens its own assistant message with content null; reasoning without an answer belongs to no turn', () => {
    const items: OpenAIResponsesInputItem[] = [
      { role: 'user', content: 'Weather?' },
      { type: 'reasoning', id: 'rs_x', summary: [{ type: 'summary_text', text: 'lost' }] },
      { role: 'user', content: 'Weather in Oslo?' },
      { type: 'reasoning', id: 'rs_y', summary: [{ type: 'summary_text', text: 'call it' }] },
      { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
    ];
    expect(inputItemsToChatMessages(items, ZHIPU_LIKE)).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: null, reasoning_content: 'call it', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ]);
  });

  it('a spec-shaped assistant message of input parts keeps its parts; tool output with an image: its text in the tool message, the image in a user message after it (issue 33)', () => {
    const items: OpenAIResponsesInputItem[] = [
      { role: 'assistant', content: [{ type: 'input_text', text: 'hi' }] },
      { type: 'function_call', call_id: 'c', name: 'view_image', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_image', image_url: 'data:image/png;base64,AA' }] },
    ];
    const messages = inputItemsToChatMessages(items, OPENAI_LIKE);
    expect(messages[0]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'hi' }], tool_calls: [{ id: 'c', type: 'function', function: { name: 'view_image', arguments: '{}' } }] });
    expect(messages[1]).toEqual({ role: 'tool', tool_call_id: 'c', content: '[image attached in the next user message]' });
    expect(messages[2]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Images from the tool results above:' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }] });
    expect(messages).toHaveLength(3);
  });

  it('custom tool calls have no chat form: a 400 naming the item', () => {
    const attempt = () => inputItemsToChatMessages([{ role: 'user', content: 'x' }, { type: 'custom_tool_call', call_id: 'c', name: 'apply_patch', input: '*** Begin Patch' }], OPENAI_LIKE);
    expect(attempt).toThrow(GatewayError);
    expect(attempt).toThrow("'input[1]': custom_tool_call items are not supported");
  });

  it('an assistant message holding output_text and an image part: a 400 naming the part', () => {
    const attempt = () => inputItemsToChatMessages([{ role: 'assistant', content: [{ type: 'output_text', text: 'x' }, { type: 'input_image', image_url: 'https://x/a.png' }] }], OPENAI_LIKE);
    expect(attempt).toThrow("'input[0].content[1]'");
  });
});
