import type { GeminiFinishReason, GeminiFunctionCall, GeminiUsageMetadata } from '../../protocols/gemini-generate/types.js';
import type { OpenAIChatToolCall, OpenAIChatUsage, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import { usageFromGemini } from './wire.js';

/**
 * Every finishReason of the SDK enum (gemini.md "finishReason values"). Safety, policy and
 * recitation stops are content filters; function-call failures and the other "stopped for some
 * reason" values end a turn without a filter, so they read as `stop`. IMAGE_OTHER and NO_IMAGE
 * say no image came out, not that one was filtered (as FILTER_REASONS in wire.ts has it).
 */
const FINISH_REASON_BY_GEMINI = {
  FINISH_REASON_UNSPECIFIED: 'stop',
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  LANGUAGE: 'stop',
  OTHER: 'stop',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'stop',
  IMAGE_SAFETY: 'content_filter',
  UNEXPECTED_TOOL_CALL: 'stop',
  TOO_MANY_TOOL_CALLS: 'stop',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  NO_IMAGE: 'stop',
  IMAGE_RECITATION: 'content_filter',
  IMAGE_OTHER: 'stop',
} as const satisfies Record<GeminiFinishReason, OpenAIFinishReason>;

/**
 * A candidate that asked for function calls and stopped normally finishes with `tool_calls`, as
 * OpenAI's do (Gemini says STOP). Values newer than the enum above read as `stop`, never raw.
 */
export function mapFinishReason(reason: string | undefined, hasToolCalls: boolean): OpenAIFinishReason | null {
  if (reason === undefined) return null;
  const mapped = Object.hasOwn(FINISH_REASON_BY_GEMINI, reason) ? FINISH_REASON_BY_GEMINI[reason as GeminiFinishReason] : 'stop';
  return mapped === 'stop' && hasToolCalls ? 'tool_calls' : mapped;
}

/** Gemini's usageMetadata as OpenAI usage: thoughts count inside completion tokens, as OpenAI's reasoning does. */
export function toChatUsage(meta: GeminiUsageMetadata | undefined): OpenAIChatUsage {
  const usage = usageFromGemini(meta, 0);
  const chat: OpenAIChatUsage = { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.totalTokens };
  if (meta?.cachedContentTokenCount) chat.prompt_tokens_details = { cached_tokens: meta.cachedContentTokenCount };
  if (typeof meta?.thoughtsTokenCount === 'number') chat.completion_tokens_details = { reasoning_tokens: meta.thoughtsTokenCount };
  return chat;
}

/**
 * Gemini function calls carry no id on most models; chat clients need one to answer the call.
 * The id is minted from our request id, so it is unique across turns and stable for one response.
 */
export function toToolCall(call: GeminiFunctionCall, requestId: string, choice: number, position: number, thoughtSignature?: string): OpenAIChatToolCall {
  return {
    id: call.id ?? `call_${requestId}_${choice}_${position}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) },
    // Gemini 3 refuses a later turn whose function calls lost their signatures (gemini.md "Thoughts").
    ...(thoughtSignature ? { extra_content: { google: { thought_signature: thoughtSignature } } } : {}),
  };
}

/** `chatcmpl-` plus Gemini's responseId, or our request id when the upstream sent none. */
export const chatCompletionId = (responseId: string | undefined, requestId: string): string => `chatcmpl-${responseId ?? requestId}`;
