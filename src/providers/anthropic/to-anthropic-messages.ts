import { GatewayError } from '../../errors.js';
import type { OpenAIChatContentPart, OpenAIChatMessage } from '../../protocols/openai-chat/types.js';
import type { AnthropicContentBlockParam, AnthropicImageBlock, AnthropicMessageParam, AnthropicToolResultBlock } from './wire.js';

export interface AnthropicConversation {
  system: string | undefined;
  messages: AnthropicMessageParam[];
}

/**
 * Chat messages → Anthropic's top-level `system` plus alternating user/assistant turns.
 * System and developer messages are hoisted wherever they stand (Anthropic has no system role in
 * `messages`) and joined with blank lines; tool results become user turns; consecutive turns of
 * one role are merged, which Anthropic requires for tool results of one assistant turn.
 * Earlier assistant `reasoning_content` is dropped: Anthropic only takes back thinking blocks
 * with their signature, which chat-shaped history does not carry.
 */
export function toAnthropicMessages(messages: readonly OpenAIChatMessage[]): AnthropicConversation {
  const system: string[] = [];
  const turns: AnthropicMessageParam[] = [];
  // The last turn's blocks once it has absorbed a following turn: appended to in place, so a run
  // of same-role messages merges in linear time (copying on every merge was quadratic, issue 13).
  let merged: AnthropicContentBlockParam[] | undefined;
  messages.forEach((message, index) => {
    if (message.role === 'system' || message.role === 'developer') {
      system.push(textOf(message.content));
      return;
    }
    const turn = toTurn(message, index);
    const previous = turns[turns.length - 1];
    if (previous && previous.role === turn.role) {
      if (!merged) previous.content = merged = [...asBlocks(previous.content)];
      for (const block of asBlocks(turn.content)) merged.push(block);
    } else {
      turns.push(turn);
      merged = undefined;
    }
  });
  if (turns.length === 0) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'messages' must contain at least one user or assistant message", { param: 'messages' });
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: turns };
}

function toTurn(message: OpenAIChatMessage, index: number): AnthropicMessageParam {
  switch (message.role) {
    case 'tool':
      return {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: toolResultContent(message.content, index) }],
      };
    case 'assistant':
      return { role: 'assistant', content: assistantContent(message) };
    default:
      return { role: 'user', content: userContent(message.content, index) };
  }
}

/**
 * A tool message's content as a tool_result's: text, or, when it holds images (a screenshot, a
 * viewed file), text and image blocks, which Anthropic takes inside tool_result (issue 33: the
 * image was dropped). Video has no place there: a 400.
 */
function toolResultContent(content: OpenAIChatMessage['content'], index: number): AnthropicToolResultBlock['content'] {
  if (!Array.isArray(content) || !content.some((part) => part.type !== 'text')) return textOf(content);
  return content.map((part, partIndex) => {
    const param = `messages[${index}].content[${partIndex}]`;
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image_url') return imageBlock(part.image_url.url, param);
    throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': a tool result of type '${part.type}' cannot be carried to this model's upstream`, { param });
  });
}

function assistantContent(message: OpenAIChatMessage): AnthropicMessageParam['content'] {
  const text = textOf(message.content);
  if (!message.tool_calls || message.tool_calls.length === 0) return text;
  const blocks: AnthropicContentBlockParam[] = text ? [{ type: 'text', text }] : [];
  for (const call of message.tool_calls) {
    blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseArguments(call.function.arguments) });
  }
  return blocks;
}

function userContent(content: OpenAIChatMessage['content'], index: number): AnthropicMessageParam['content'] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part, partIndex) => toBlock(part, `messages[${index}].content[${partIndex}]`));
}

function toBlock(part: OpenAIChatContentPart, param: string): AnthropicContentBlockParam {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image_url':
      return imageBlock(part.image_url.url, param);
    case 'video_url':
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': video input is not supported by this model's upstream`, { param });
  }
}

/** Anthropic takes images as base64 data or as a URL it fetches itself (anthropic.md "Message content"). */
function imageBlock(url: string, param: string): AnthropicImageBlock {
  const data = /^data:(image\/[a-z+.-]+);base64,(.*)$/is.exec(url);
  if (data) return { type: 'image', source: { type: 'base64', media_type: data[1]!.toLowerCase(), data: data[2]! } };
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}.image_url.url' must be an http(s) URL or a base64 data URL`, { param: `${param}.image_url.url` });
}

function textOf(content: OpenAIChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

const asBlocks = (content: AnthropicMessageParam['content']): AnthropicContentBlockParam[] =>
  typeof content === 'string' ? (content ? [{ type: 'text', text: content }] : []) : content;

/** Tool arguments arrive as JSON text; Anthropic wants the object. Non-JSON text is a client error. */
function parseArguments(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : {};
  } catch {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'tool_calls[].function.arguments' must be JSON text", { param: 'messages' });
  }
}
