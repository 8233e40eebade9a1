import { GatewayError } from '../../errors.js';
import type { GeminiContent, GeminiGenerateContentRequest, GeminiPart } from '../../protocols/gemini-generate/types.js';
import type { OpenAIChatContentPart, OpenAIChatMessage } from '../../protocols/openai-chat/types.js';

export interface GeminiConversation {
  systemInstruction: GeminiGenerateContentRequest['systemInstruction'];
  contents: GeminiContent[];
}

/**
 * Chat messages → Gemini `systemInstruction` plus `contents` (gemini.md "Request"). System and
 * developer messages are hoisted (one text part each); assistant turns become role `model`; tool
 * results become `functionResponse` parts of a user turn; consecutive turns of one role merge, so
 * the parallel results of one model turn sit in the one user turn Gemini expects after it.
 * Earlier assistant `reasoning_content` is dropped: Gemini takes back thoughts only as
 * `thoughtSignature`s; those of function calls come back in `tool_calls[].extra_content.google`
 * (where the gateway put them, as Google's OpenAI-compatible API does) and return to their part.
 */
export function toGeminiContents(messages: readonly OpenAIChatMessage[]): GeminiConversation {
  const system: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  /** Function names by tool call id: Gemini answers calls by name, chat answers them by id. */
  const callNames = new Map<string, string>();
  messages.forEach((message, index) => {
    if (message.role === 'system' || message.role === 'developer') {
      const text = systemText(message.content, index);
      if (text) system.push({ text });
      return;
    }
    const turn = toTurn(message, index, callNames);
    // An empty assistant reply (e.g. our own content_filter answer, replayed as history) says
    // nothing to the model, and Gemini refuses empty parts, so it is left out.
    if (turn.parts.length === 0 && message.role === 'assistant') return;
    if (turn.parts.length === 0) {
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'messages[${index}].content' must not be empty for this model's upstream`, { param: `messages[${index}].content` });
    }
    const previous = contents[contents.length - 1];
    if (previous && previous.role === turn.role) for (const part of turn.parts) previous.parts.push(part); // no spread: a turn may hold 100,000s of parts
    else contents.push(turn);
  });
  if (contents.length === 0) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'messages' must contain at least one user or assistant message", { param: 'messages' });
  }
  return { systemInstruction: system.length > 0 ? { parts: system } : undefined, contents };
}

function toTurn(message: OpenAIChatMessage, index: number, callNames: Map<string, string>): GeminiContent {
  switch (message.role) {
    case 'assistant':
      return { role: 'model', parts: assistantParts(message, index, callNames) };
    case 'tool':
      return { role: 'user', parts: [functionResponsePart(message, index, callNames)] };
    default:
      return { role: 'user', parts: userParts(message.content) };
  }
}

function assistantParts(message: OpenAIChatMessage, index: number, callNames: Map<string, string>): GeminiPart[] {
  const parts: GeminiPart[] = [];
  const content = message.content;
  if (typeof content === 'string') {
    if (content) parts.push({ text: content });
  } else if (Array.isArray(content)) {
    content.forEach((part, partIndex) => {
      if (part.type !== 'text') {
        const param = `messages[${index}].content[${partIndex}]`;
        throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': assistant messages may only hold text parts`, { param });
      }
      if (part.text) parts.push({ text: part.text });
    });
  }
  (message.tool_calls ?? []).forEach((call, callIndex) => {
    callNames.set(call.id, call.function.name);
    const args = parseArguments(call.function.arguments, `messages[${index}].tool_calls[${callIndex}].function.arguments`);
    const thoughtSignature = call.extra_content?.google?.thought_signature;
    parts.push({ functionCall: { name: call.function.name, args }, ...(typeof thoughtSignature === 'string' ? { thoughtSignature } : {}) });
  });
  return parts;
}

/**
 * Gemini's FunctionResponse.response is an object; "output" holds the function's output
 * (js-genai types.ts `FunctionResponse`). A JSON-object result is sent as the object itself;
 * any other text is sent as `{output: text}`.
 */
function functionResponsePart(message: OpenAIChatMessage, index: number, callNames: Map<string, string>): GeminiPart {
  const name = message.tool_call_id === undefined ? undefined : callNames.get(message.tool_call_id);
  if (name === undefined) {
    const param = `messages[${index}].tool_call_id`;
    throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}' must name a tool call of an earlier assistant message`, { param });
  }
  const text = textOf(message.content);
  return { functionResponse: { name, response: asObject(text) ?? { output: text } } };
}

function userParts(content: OpenAIChatMessage['content']): GeminiPart[] {
  if (typeof content === 'string') return content ? [{ text: content }] : [];
  if (!Array.isArray(content)) return [];
  // Gemini refuses empty text parts ("contents.parts must not be empty"), so they are left out.
  return content.flatMap((part) => (part.type === 'text' && part.text === '' ? [] : [toPart(part)]));
}

function toPart(part: OpenAIChatContentPart): GeminiPart {
  switch (part.type) {
    case 'text':
      return { text: part.text };
    case 'image_url':
      return mediaPart(part.image_url.url, 'image');
    case 'video_url': {
      const media = mediaPart(part.video_url.url, 'video');
      return part.video_url.fps === undefined ? media : { ...media, videoMetadata: { fps: part.video_url.fps } };
    }
  }
}

/** Base64 data URLs go inline; any other URL is a `fileData` the API fetches (gemini.md "Part kinds"). */
function mediaPart(url: string, kind: 'image' | 'video'): GeminiPart {
  const data = /^data:([a-z]+\/[a-z0-9+.-]+);base64,(.*)$/is.exec(url);
  if (data) return { inlineData: { mimeType: data[1]!.toLowerCase(), data: data[2]! } };
  return { fileData: { mimeType: guessMimeType(url, kind), fileUri: url } };
}

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp', gif: 'image/gif', heic: 'image/heic', heif: 'image/heif',
  mp4: 'video/mp4', mpeg: 'video/mpeg', mpg: 'video/mpg', mov: 'video/mov', avi: 'video/avi', flv: 'video/x-flv', webm: 'video/webm',
  wmv: 'video/wmv', '3gp': 'video/3gpp',
};

/** fileData needs a mimeType; the URL's extension gives it, else the most common type of the kind. */
function guessMimeType(url: string, kind: 'image' | 'video'): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // not a URL the WHATWG parser takes (e.g. a bare Files API name); use it as written
  }
  const extension = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase();
  const mime = extension === undefined ? undefined : MIME_BY_EXTENSION[extension];
  if (mime?.startsWith(`${kind}/`)) return mime;
  return kind === 'image' ? 'image/jpeg' : 'video/mp4';
}

function systemText(content: OpenAIChatMessage['content'], index: number): string {
  if (typeof content === 'string' || !Array.isArray(content)) return content ?? '';
  return content
    .map((part, partIndex) => {
      if (part.type === 'text') return part.text;
      const param = `messages[${index}].content[${partIndex}]`;
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}': system messages may only hold text parts`, { param });
    })
    .join('');
}

function textOf(content: OpenAIChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

function asObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Tool arguments arrive as JSON text; Gemini wants the object. Anything else is a client error. */
function parseArguments(text: string, param: string): Record<string, unknown> {
  if (!text) return {};
  const value = asObject(text);
  if (!value) throw new GatewayError('GW_REQ_INVALID_PARAM', `'${param}' must be a JSON object`, { param });
  return value;
}
