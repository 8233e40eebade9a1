import { GatewayError } from '../../errors.js';
import type { OpenAIChatContentPart, OpenAIChatMessage } from '../../protocols/openai-chat/types.js';
import type { ConverseContentBlock, ConverseImageFormat, ConverseMessage } from './wire.js';

export interface ConverseConversation {
  system: Array<{ text: string }> | undefined;
  messages: ConverseMessage[];
}

/**
 * Chat messages → Converse's `system` blocks plus alternating user/assistant turns. System and
 * developer messages are hoisted (Converse has no system role in `messages`); tool results become
 * `toolResult` blocks of a user turn; consecutive turns of one role merge, as Converse requires for
 * the results of one assistant turn. Earlier `reasoning_content` is dropped: Claude only takes
 * thinking back with its signature, which chat-shaped history does not carry.
 */
export function toConverseMessages(messages: readonly OpenAIChatMessage[]): ConverseConversation {
  const system: Array<{ text: string }> = [];
  const turns: ConverseMessage[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOf(message.content);
      if (text) system.push({ text });
      return;
    }
    const turn = toTurn(message, index);
    const previous = turns[turns.length - 1];
    if (previous && previous.role === turn.role) for (const block of turn.content) previous.content.push(block);
    else if (turn.content.length > 0) turns.push(turn);
  });
  if (turns.length === 0) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'messages' must contain at least one user or assistant message", { param: 'messages' });
  }
  return { system: system.length > 0 ? system : undefined, messages: turns };
}

function toTurn(message: OpenAIChatMessage, index: number): ConverseMessage {
  switch (message.role) {
    case 'tool':
      return { role: 'user', content: [{ toolResult: { toolUseId: message.tool_call_id ?? '', content: [{ text: textOf(message.content) }] } }] };
    case 'assistant':
      return { role: 'assistant', content: assistantContent(message) };
    default:
      return { role: 'user', content: userContent(message.content, index) };
  }
}

function assistantContent(message: OpenAIChatMessage): ConverseContentBlock[] {
  const text = textOf(message.content);
  const blocks: ConverseContentBlock[] = text ? [{ text }] : [];
  for (const call of message.tool_calls ?? []) {
    blocks.push({ toolUse: { toolUseId: call.id, name: call.function.name, input: parseArguments(call.function.arguments) } });
  }
  return blocks;
}

function userContent(content: OpenAIChatMessage['content'], index: number): ConverseContentBlock[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  return content.map((part, partIndex) => toBlock(part, `messages[${index}].content[${partIndex}]`));
}

function toBlock(part: OpenAIChatContentPart, param: string): ConverseContentBlock {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url':
      return imageBlock(part.image_url.url, param);
    case 'video_url':
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': video input is not supported by this model's upstream`, { param });
  }
}

const IMAGE_FORMATS: Readonly<Record<string, ConverseImageFormat>> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

/**
 * Converse takes image bytes (or an S3 location), never a URL it would fetch: only base64 data
 * URLs of its four formats are accepted; anything else is the client's 400, not a silent drop.
 */
function imageBlock(url: string, param: string): ConverseContentBlock {
  const data = /^data:(image\/[a-z+.-]+);base64,(.*)$/is.exec(url);
  const format = data ? IMAGE_FORMATS[data[1]!.toLowerCase()] : undefined;
  if (!data || !format) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}.image_url.url' must be a base64 data URL of a PNG, JPEG, GIF or WebP image for this model's upstream`, { param: `${param}.image_url.url` });
  }
  return { image: { format, source: { bytes: data[2]! } } };
}

function textOf(content: OpenAIChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** Tool arguments arrive as JSON text; Converse wants the object. Non-JSON text is a client error. */
function parseArguments(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : {};
  } catch {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'tool_calls[].function.arguments' must be JSON text", { param: 'messages' });
  }
}
