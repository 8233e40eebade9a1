import { GatewayError } from '../../errors.js';
import type { OpenAIChatContentPart, OpenAIChatMessage, OpenAIChatRequest, OpenAIChatTool } from '../../protocols/openai-chat/types.js';
import type {
  AnthropicContentBlockParam,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicMessagesRequest,
  AnthropicTextBlock,
  AnthropicTool,
  AnthropicToolResultBlock,
} from '../../protocols/anthropic-messages/types.js';
import type { TranslateContext } from '../../contracts/translator.js';

/**
 * Request fields a chat upstream has no use for, left out on purpose (docs/decisions.md,
 * "Anthropic-native /v1/messages on other channels"): hints about Anthropic's own prompt cache,
 * context editing, service tier and abuse tracking (`metadata`), and the thinking settings, which
 * a chat model applies its own way. None of them changes what a correct answer is.
 */
const HINT_FIELDS = new Set(['cache_control', 'context_management', 'service_tier', 'metadata', 'thinking', 'inference_geo']);

/** Fields mapped below. */
const MAPPED_FIELDS = new Set(['model', 'max_tokens', 'messages', 'system', 'temperature', 'top_p', 'stop_sequences', 'stream', 'tools', 'tool_choice', 'output_config']);

const refuse = (param: string, what: string): GatewayError =>
  new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': ${what} is not supported for this model: its channel answers through chat completions`, { param });

/**
 * An Anthropic Messages request as a chat request. Mapped: `system` (string or text blocks) → a
 * system message; text and image blocks → parts; `tool_use` → the assistant's `tool_calls`;
 * `tool_result` → tool messages (placed first in their turn, right after the calls they answer);
 * tools, tool_choice (`disable_parallel_tool_use` → `parallel_tool_calls: false`), stop sequences,
 * `output_config.format` → `response_format`. Earlier thinking blocks are dropped: only Anthropic
 * can verify their signatures. What chat cannot carry (server tools, PDF documents, `top_k`,
 * `container`, unknown fields) is refused with a 400 naming it.
 */
export function anthropicToChatRequest(req: AnthropicMessagesRequest, ctx: TranslateContext): OpenAIChatRequest {
  for (const field of Object.keys(req)) {
    if (!MAPPED_FIELDS.has(field) && !HINT_FIELDS.has(field)) throw refuse(field, `the field '${field}'`);
  }
  const messages: OpenAIChatMessage[] = [];
  const system = systemText(req.system);
  if (system) messages.push({ role: 'system', content: system });
  req.messages.forEach((message, index) => appendMessage(messages, message, index));
  const body: OpenAIChatRequest = { model: ctx.model, messages, max_tokens: req.max_tokens };
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.top_p !== undefined) body.top_p = req.top_p;
  if (req.stop_sequences && req.stop_sequences.length > 0) body.stop = [...req.stop_sequences];
  if (req.tools && req.tools.length > 0) body.tools = req.tools.map(toChatTool);
  const choice = req.tool_choice;
  if (choice) {
    body.tool_choice = choice.type === 'tool' ? { type: 'function', function: { name: choice.name } } : choice.type === 'any' ? 'required' : choice.type;
    if (choice.type !== 'none' && choice.disable_parallel_tool_use === true) body.parallel_tool_calls = false;
  }
  const format = req.output_config?.format;
  if (format?.type === 'json_schema') body.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: format.schema } };
  if (req.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

/** A system turn inside `messages` holds text only. */
function systemBlockText(block: AnthropicContentBlockParam, param: string): string {
  if (block.type !== 'text') throw refuse(`${param}.type`, `a '${block.type}' block in a system message`);
  return block.text;
}

/** System text blocks joined by blank lines; their cache_control marks are hints (above). */
function systemText(system: AnthropicMessagesRequest['system']): string {
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n\n');
}

function appendMessage(messages: OpenAIChatMessage[], message: AnthropicMessageParam, index: number): void {
  if (typeof message.content === 'string') {
    messages.push({ role: message.role, content: message.content });
    return;
  }
  if (message.role === 'system') {
    messages.push({ role: 'system', content: message.content.map((block, j) => systemBlockText(block, `messages[${index}].content[${j}]`)).join('\n\n') });
    return;
  }
  if (message.role === 'assistant') {
    messages.push(assistantMessage(message.content, index));
    return;
  }
  // Tool results answer the assistant turn just before: they come first, as tool messages.
  const parts: OpenAIChatContentPart[] = [];
  message.content.forEach((block, j) => {
    const param = `messages[${index}].content[${j}]`;
    if (block.type === 'tool_result') messages.push(...toolMessages(block, param, parts));
    else parts.push(userPart(block, param));
  });
  if (parts.length > 0) messages.push({ role: 'user', content: parts });
}

function assistantMessage(blocks: readonly AnthropicContentBlockParam[], index: number): OpenAIChatMessage {
  let text = '';
  const calls: NonNullable<OpenAIChatMessage['tool_calls']> = [];
  blocks.forEach((block, j) => {
    switch (block.type) {
      case 'text':
        text += block.text;
        break;
      case 'tool_use':
        calls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
        break;
      case 'thinking':
      case 'redacted_thinking':
        break;
      default:
        throw refuse(`messages[${index}].content[${j}].type`, `an assistant '${(block as { type: string }).type}' block`);
    }
  });
  const message: OpenAIChatMessage = { role: 'assistant', content: calls.length > 0 && !text ? null : text };
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

/**
 * A tool result as a tool message. Its text blocks join into the message's text (after `Error: `
 * when `is_error` marks a failed call); images a tool
 * returned (a screenshot, a file read) cannot go in a chat tool message, so they follow in the
 * turn's user message, where every vision model sees them.
 */
function toolMessages(block: AnthropicToolResultBlock, param: string, userParts: OpenAIChatContentPart[]): OpenAIChatMessage[] {
  let text = '';
  if (typeof block.content === 'string') text = block.content;
  else {
    (block.content ?? []).forEach((part, k) => {
      if (part.type === 'text') text += part.text;
      else userParts.push(userPart(part, `${param}.content[${k}]`));
    });
  }
  // Chat's tool message has no error flag: the model learns the call failed from the text (issue 33).
  if (block.is_error === true) text = `Error: ${text}`;
  return [{ role: 'tool', tool_call_id: block.tool_use_id, content: text }];
}

function userPart(block: AnthropicContentBlockParam, param: string): OpenAIChatContentPart {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: (block as AnthropicTextBlock).text };
    case 'image':
      return { type: 'image_url', image_url: { url: imageUrl(block) } };
    case 'document':
      return documentText(block, param);
    default:
      throw refuse(`${param}.type`, `a '${block.type}' block`);
  }
}

const imageUrl = (block: AnthropicImageBlock): string =>
  block.source.type === 'base64' ? `data:${block.source.media_type};base64,${block.source.data}` : block.source.url;

/** Plain-text documents read as text; PDFs have no portable chat part. */
function documentText(block: AnthropicDocumentBlock, param: string): OpenAIChatContentPart {
  const source = block.source;
  const title = block.title ? `${block.title}\n\n` : '';
  if (source.type === 'text') return { type: 'text', text: title + source.data };
  if (source.type === 'content') {
    const content = typeof source.content === 'string' ? source.content : source.content.map((part) => part.text).join('');
    return { type: 'text', text: title + content };
  }
  throw refuse(`${param}.source`, 'a PDF document');
}

/** Client tools only: server tools (`web_search_20250305`, `bash_…`) run at Anthropic. */
function toChatTool(tool: AnthropicTool, index: number): OpenAIChatTool {
  if (tool.type !== undefined && tool.type !== 'custom') throw refuse(`tools[${index}].type`, `the server tool '${tool.type}'`);
  return {
    type: 'function',
    function: { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.input_schema },
  };
}
