import { GatewayError } from '../../errors.js';
import type { OpenAIChatMessage, OpenAIChatRequest, OpenAIChatTool, OpenAIChatToolCall } from '../../protocols/openai-chat/types.js';
import type { OpenAIFunctionCallItem } from '../../protocols/openai-responses/types.js';

/**
 * Function calling of the Responses API over chat completions (openai.md §1 and §2): flat
 * function tools become chat's nested ones, `function_call` input items become the assistant's
 * `tool_calls`, `function_call_output` items become `tool` messages, and the upstream's
 * `tool_calls` come back as `function_call` output items with the call id as `call_id`.
 */
interface ResponsesFunctionTool {
  type: 'function';
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean;
}

export function toChatTools(tools: unknown): OpenAIChatTool[] | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return tools.map((tool: Partial<ResponsesFunctionTool> & { type?: unknown }, index) => {
    if (tool.type !== 'function' || typeof tool.name !== 'string') {
      const param = `tools[${index}]`;
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': only function tools are supported for this model (its channel answers through chat completions)`, { param });
    }
    const fn: OpenAIChatTool['function'] = { name: tool.name };
    if (tool.description !== undefined) fn.description = tool.description;
    if (tool.parameters !== undefined) fn.parameters = tool.parameters;
    if (tool.strict !== undefined) fn.strict = tool.strict;
    return { type: 'function', function: fn };
  });
}

export function toChatToolChoice(choice: unknown): OpenAIChatRequest['tool_choice'] | undefined {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (choice && typeof choice === 'object' && (choice as { type?: unknown }).type === 'function' && typeof (choice as { name?: unknown }).name === 'string') {
    return { type: 'function', function: { name: (choice as { name: string }).name } };
  }
  return undefined;
}

interface FunctionCallInput {
  type: 'function_call';
  call_id: string;
  name: string;
  arguments: string;
}
interface FunctionCallOutputInput {
  type: 'function_call_output';
  call_id: string;
  output: unknown;
}

export const isFunctionItem = (item: { type?: unknown }): item is FunctionCallInput | FunctionCallOutputInput =>
  item.type === 'function_call' || item.type === 'function_call_output';

/** Adds one function item to the chat messages; consecutive calls share one assistant message. */
export function appendFunctionItem(messages: OpenAIChatMessage[], item: FunctionCallInput | FunctionCallOutputInput): void {
  if (item.type === 'function_call_output') {
    const content = typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
    messages.push({ role: 'tool', tool_call_id: item.call_id, content });
    return;
  }
  const call: OpenAIChatToolCall = { id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } };
  const previous = messages[messages.length - 1];
  if (previous?.role === 'assistant' && previous.tool_calls && !previous.content) previous.tool_calls.push(call);
  else messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

/** The upstream's tool calls as output items; ids derive from the call ids, so they are stable. */
export const functionCallItems = (calls: readonly OpenAIChatToolCall[] | undefined): OpenAIFunctionCallItem[] =>
  (calls ?? []).map((call) => ({
    id: `fc_${call.id.replace(/^call_/, '')}`,
    type: 'function_call',
    status: 'completed',
    call_id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
  }));
