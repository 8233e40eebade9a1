import { GatewayError } from '../../errors.js';
import type { OpenAIChatContentPart, OpenAIChatMessage, OpenAIChatToolCall } from '../../protocols/openai-chat/types.js';
import {
  isInputMessage,
  type OpenAIFunctionCallInputItem,
  type OpenAIReasoningInputItem,
  type OpenAIResponsesInputItem,
  type OpenAIResponsesInputMessage,
  type OpenAIResponsesInputPart,
  type OpenAIToolOutput,
} from '../../protocols/openai-responses/input-items.js';
import { encodeNamespacedName } from './namespaced-tool-name.js';

/**
 * A Responses conversation (the whole history an agent resends each turn) as chat messages:
 * user, system and developer messages keep their parts; an assistant message becomes an
 * assistant turn; `function_call` items become that turn's `tool_calls` (consecutive calls, and
 * a call right after the assistant's text, share one assistant message, as chat models answer);
 * `function_call_output` items become `tool` messages. A chat tool message carries text only,
 * so the images of a tool's output (Codex's `view_image`) follow the run of tool messages as one
 * user message (issue 33), which every chat model reads and Anthropic's translation merges into
 * the tool results' turn; OpenAI requires the tool messages to follow their call unbroken.
 *
 * Dropped on purpose, because a chat upstream has no way to take them: `encrypted_content` of
 * reasoning items (only the vendor that minted it can verify it) and `web_search_call` items (the
 * record of a hosted search; the assistant message after it holds what the search found).
 * Reasoning text becomes the assistant's `reasoning_content` where the vendor takes it back.
 */
export interface ResponsesInputToChatOptions {
  /** Role sent for `developer` messages (vendors without that role get `system`). */
  readonly developerRoleAs: 'developer' | 'system';
  /** The vendor takes earlier reasoning back as the assistant's `reasoning_content` (interleaved thinking). */
  readonly takesReasoningContent: boolean;
}

interface Conversion {
  readonly messages: OpenAIChatMessage[];
  /** Reasoning read since the last assistant turn, waiting for the turn it belongs to. */
  pendingReasoning: string;
  /** Image parts of the tool outputs just read, waiting for the run of tool messages to end. */
  toolImages: OpenAIChatContentPart[] | undefined;
}

export function inputItemsToChatMessages(items: readonly OpenAIResponsesInputItem[], options: ResponsesInputToChatOptions): OpenAIChatMessage[] {
  const conversion: Conversion = { messages: [], pendingReasoning: '', toolImages: undefined };
  items.forEach((item, index) => appendItem(conversion, item, index, options));
  flushToolImages(conversion);
  return conversion.messages;
}

function appendItem(conversion: Conversion, item: OpenAIResponsesInputItem, index: number, options: ResponsesInputToChatOptions): void {
  if (conversion.toolImages && (isInputMessage(item) || item.type !== 'function_call_output')) flushToolImages(conversion);
  if (isInputMessage(item)) {
    if (item.role === 'assistant') {
      pushAssistant(conversion, { role: 'assistant', content: assistantContent(item, index) });
      return;
    }
    conversion.pendingReasoning = ''; // reasoning that led to no assistant output belongs to no turn
    conversion.messages.push(toChatMessage(item, options));
    return;
  }
  switch (item.type) {
    case 'reasoning':
      if (options.takesReasoningContent) conversion.pendingReasoning = [conversion.pendingReasoning, reasoningText(item)].filter(Boolean).join('\n\n');
      return;
    case 'function_call':
      appendToolCall(conversion, item);
      return;
    case 'function_call_output':
      conversion.pendingReasoning = '';
      conversion.messages.push({ role: 'tool', tool_call_id: item.call_id, content: toolOutputText(conversion, item.output, index) });
      return;
    case 'web_search_call':
      return;
    case 'custom_tool_call':
    case 'custom_tool_call_output': {
      const param = `input[${index}]`;
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': ${item.type} items are not supported for this model (its channel answers through chat completions, which has no custom tools)`, { param });
    }
  }
}

function toChatMessage(message: OpenAIResponsesInputMessage, options: ResponsesInputToChatOptions): OpenAIChatMessage {
  const role = message.role === 'developer' ? options.developerRoleAs : message.role;
  return { role, content: typeof message.content === 'string' ? message.content : message.content.map((part) => toChatPart(part as OpenAIResponsesInputPart)) };
}

/**
 * The model's own earlier output (`output_text`, `refusal`) as the assistant's text; an assistant
 * message of input parts only (a spec-shaped message) keeps its parts.
 */
function assistantContent(message: OpenAIResponsesInputMessage, index: number): OpenAIChatMessage['content'] {
  if (typeof message.content === 'string') return message.content;
  if (!message.content.some((part) => part.type === 'output_text' || part.type === 'refusal')) return message.content.map((part) => toChatPart(part as OpenAIResponsesInputPart));
  return message.content
    .map((part, at) => {
      if (part.type === 'output_text' || part.type === 'input_text') return part.text;
      if (part.type === 'refusal') return part.refusal;
      const param = `input[${index}].content[${at}]`;
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': an assistant message holding output_text cannot also hold ${part.type} parts through chat completions`, { param });
    })
    .join('');
}

/** A new assistant turn, carrying the reasoning that came before it. */
function pushAssistant(conversion: Conversion, message: OpenAIChatMessage): void {
  if (conversion.pendingReasoning) message.reasoning_content = conversion.pendingReasoning;
  conversion.pendingReasoning = '';
  conversion.messages.push(message);
}

function appendToolCall(conversion: Conversion, item: OpenAIFunctionCallInputItem): void {
  const name = item.namespace ? encodeNamespacedName(item.namespace, item.name) : item.name;
  const call: OpenAIChatToolCall = { id: item.call_id, type: 'function', function: { name, arguments: item.arguments } };
  const previous = conversion.messages[conversion.messages.length - 1];
  if (previous?.role !== 'assistant') {
    pushAssistant(conversion, { role: 'assistant', content: null, tool_calls: [call] });
    return;
  }
  (previous.tool_calls ??= []).push(call);
  if (conversion.pendingReasoning) {
    previous.reasoning_content = (previous.reasoning_content ?? '') + conversion.pendingReasoning;
    conversion.pendingReasoning = '';
  }
}

/** The readable text of a reasoning item: its raw reasoning where given, else its summary. */
function reasoningText(item: OpenAIReasoningInputItem): string {
  const parts = item.content && item.content.length > 0 ? item.content : item.summary;
  return parts.map((part) => part.text).join('\n\n');
}

/**
 * A tool's output as tool-message text: text parts joined; image parts set aside for the user
 * message after the tool messages (the text says so); a file named by URL as its URL, as in
 * messages. Anything else has no chat form: a 400, never its JSON as text (a 262 KB base64 image
 * as text is ~179k tokens the model cannot see as a picture).
 */
function toolOutputText(conversion: Conversion, output: OpenAIToolOutput, index: number): string {
  if (typeof output === 'string') return output;
  const texts: string[] = [];
  output.forEach((part, at) => {
    if (part.type === 'input_text' && typeof part.text === 'string') texts.push(part.text);
    else if (part.type === 'input_image' && typeof part.image_url === 'string') {
      (conversion.toolImages ??= []).push(toChatPart(part as OpenAIResponsesInputPart));
      texts.push('[image attached in the next user message]');
    } else if (part.type === 'input_file' && typeof part.file_url === 'string') texts.push(`File: ${part.file_url}`);
    else {
      const param = `input[${index}].output[${at}]`;
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': a tool output part of type '${String(part.type)}'${part.type === 'input_image' ? ' without an image_url' : ''} cannot be carried to this model's upstream (chat completions)`, { param });
    }
  });
  return texts.join('\n');
}

/** The images of the tool outputs just read, as one user message after their tool messages. */
function flushToolImages(conversion: Conversion): void {
  if (!conversion.toolImages) return;
  conversion.messages.push({ role: 'user', content: [{ type: 'text', text: 'Images from the tool results above:' }, ...conversion.toolImages] });
  conversion.toolImages = undefined;
}

/**
 * input_file has no portable chat part (OpenAI's chat `file` part takes uploads, not URLs), so it
 * becomes a text part that names the URL: every chat model can read it, none rejects it.
 */
export function toChatPart(part: OpenAIResponsesInputPart): OpenAIChatContentPart {
  switch (part.type) {
    case 'input_text':
      return { type: 'text', text: part.text };
    case 'input_image':
      return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail !== undefined ? { detail: part.detail } : {}) } };
    case 'input_video':
      return { type: 'video_url', video_url: { url: part.video_url, ...(part.fps !== undefined ? { fps: part.fps } : {}) } };
    case 'input_file':
      return { type: 'text', text: `File: ${part.file_url}` };
  }
}
