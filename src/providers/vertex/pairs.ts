import type { TranslateContext } from '../../contracts/translator.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { chatCompletionsToAnthropic } from '../anthropic/from-chat-completions.js';
import { messagesPassThrough } from '../anthropic/messages-pass-through.js';
import { anthropicViaChat } from '../chat-hub/anthropic-via-chat.js';
import { viaChatHub } from '../chat-hub/compose.js';
import { geminiViaChat } from '../chat-hub/gemini-via-chat.js';
import { chatCompletionsToGemini } from '../gemini/from-chat-completions.js';
import { generateContentToGemini } from '../gemini/from-generate-content.js';
import { imagesToGemini } from '../gemini/from-images.js';
import { pairByModel, retargetPair } from '../retarget-pair.js';
import { publisherPath } from './endpoint.js';
import { embeddingsToVertex } from './from-embeddings.js';

/** The body's `anthropic_version` on Vertex (clouds.md §3); the model moves into the URL. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** Claude models (publisher `anthropic`); the rest are Google's own. */
export const isClaude = (upstreamModel: string): boolean => /^claude/i.test(upstreamModel);

/** Anthropic's error envelope (`{type:"error",error:{…}}`); Vertex's own errors are Google-shaped. */
const isAnthropicError = (body: unknown): boolean => (body as { type?: unknown } | null)?.type === 'error';

/** A Gemini API call (`/v1beta/models/{m}:{method}`) at Vertex's publisher path; bodies are the same. */
function asVertexGemini(call: UpstreamCall, ctx: TranslateContext): UpstreamCall {
  const method = /:(\w+)$/.exec(call.path)?.[1] ?? 'generateContent';
  return { ...call, path: publisherPath('google', ctx.upstreamModel, method) };
}

/**
 * A Messages call as Vertex's rawPredict takes it: the body without `model`, with
 * `anthropic_version: vertex-2023-10-16`, `stream` kept (it picks streamRawPredict); the client's
 * `anthropic-beta` stays a header. Parsing keeps every string as it was, thinking signatures included.
 */
function asVertexClaude(call: UpstreamCall, ctx: TranslateContext): UpstreamCall {
  const parsed = (typeof call.body === 'string' ? JSON.parse(call.body) : call.body) as Record<string, unknown>;
  const { model: _model, ...rest } = parsed;
  const body = { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
  const headers = { ...call.headers };
  delete headers['anthropic-version'];
  return {
    method: 'POST',
    path: publisherPath('anthropic', ctx.upstreamModel, rest.stream === true ? 'streamRawPredict' : 'rawPredict'),
    headers,
    body: typeof call.body === 'string' ? JSON.stringify(body) : body,
  };
}

const geminiChat = retargetPair(chatCompletionsToGemini, asVertexGemini);
const claudeChat = retargetPair(chatCompletionsToAnthropic, asVertexClaude);
const chat = pairByModel(isClaude, geminiChat, claudeChat, isAnthropicError);

/**
 * Every family reaches both publishers: each protocol's own translator where the model speaks it
 * (Gemini-native to Gemini, Anthropic-native to Claude), the chat hub across.
 */
export const VERTEX_PAIRS = {
  'chat-completions': chat,
  messages: chat,
  'anthropic-messages': pairByModel(isClaude, viaChatHub(anthropicViaChat, geminiChat), retargetPair(messagesPassThrough, asVertexClaude), isAnthropicError),
  'generate-content': pairByModel(isClaude, retargetPair(generateContentToGemini, asVertexGemini), viaChatHub(geminiViaChat, claudeChat), isAnthropicError),
  images: retargetPair(imagesToGemini, asVertexGemini),
  embeddings: embeddingsToVertex,
};
