import type { GeminiFinishReason, GeminiGenerateContentResponse, GeminiPart, GeminiUsageMetadata } from '../../protocols/gemini-generate/types.js';
import type { OpenAIChatCompletion, OpenAIChatUsage, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import type { TranslateContext } from '../../contracts/translator.js';
import { toolInput } from './anthropic-from-chat.js';

/** Chat finish reasons as Gemini's (gemini.md "finishReason values"); tool calls end with STOP, as Gemini's do. */
const FINISH_REASON_BY_CHAT = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  tool_calls: 'STOP',
  function_call: 'STOP',
  content_filter: 'SAFETY',
} as const satisfies Record<OpenAIFinishReason, GeminiFinishReason>;

export const toGeminiFinishReason = (reason: OpenAIFinishReason | null | undefined): GeminiFinishReason => FINISH_REASON_BY_CHAT[reason ?? 'stop'];

/**
 * Chat usage as usageMetadata: Gemini counts thoughts apart from the candidates' tokens, chat
 * counts reasoning inside completion tokens; cached prompt tokens are part of the prompt in both.
 */
export function toUsageMetadata(usage: OpenAIChatUsage | null | undefined): GeminiUsageMetadata {
  const prompt = usage?.prompt_tokens ?? 0;
  const completion = usage?.completion_tokens ?? 0;
  const thoughts = usage?.completion_tokens_details?.reasoning_tokens ?? 0;
  const meta: GeminiUsageMetadata = { promptTokenCount: prompt, candidatesTokenCount: Math.max(0, completion - thoughts), totalTokenCount: usage?.total_tokens ?? prompt + completion };
  if (thoughts > 0) meta.thoughtsTokenCount = thoughts;
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  if (cached) meta.cachedContentTokenCount = cached;
  return meta;
}

/** Gemini's responseId for our request. */
export const responseIdFor = (ctx: TranslateContext): string => ctx.requestId.replace(/^req_/, '');

/**
 * A chat completion as a GenerateContentResponse: reasoning → a thought part (when the client
 * asked for thoughts), content → a text part, tool calls → `functionCall` parts (with the call id,
 * which the client sends back in its `functionResponse`).
 */
export function chatCompletionToGemini(completion: OpenAIChatCompletion, ctx: TranslateContext): GeminiGenerateContentResponse {
  const choice = completion.choices[0];
  const message = choice?.message;
  const parts: GeminiPart[] = [];
  if (message?.reasoning_content && !ctx.hidesReasoning) parts.push({ text: message.reasoning_content, thought: true });
  if (message?.content) parts.push({ text: message.content });
  for (const call of message?.tool_calls ?? []) parts.push({ functionCall: { id: call.id, name: call.function.name, args: toolInput(call.function.arguments) as Record<string, unknown> } });
  if (parts.length === 0) parts.push({ text: '' });
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: toGeminiFinishReason(choice?.finish_reason), index: 0 }],
    usageMetadata: toUsageMetadata(completion.usage),
    modelVersion: ctx.model,
    responseId: responseIdFor(ctx),
  };
}
