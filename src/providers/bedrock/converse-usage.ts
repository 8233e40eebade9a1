import type { OpenAIChatUsage, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import type { Usage } from '../../contracts/usage.js';
import type { ConverseStopReason, ConverseUsage } from './wire.js';

/** Converse stop reasons as chat finish reasons; a guardrail or filter stop is a content-filter finish. */
const FINISH_REASON_BY_STOP_REASON = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
  malformed_model_output: 'stop',
  malformed_tool_use: 'stop',
} as const satisfies Record<ConverseStopReason, OpenAIFinishReason>;

/** Unknown future stop reasons read as `stop` rather than passing on as raw strings. */
export function mapConverseStopReason(reason: string | undefined): OpenAIFinishReason {
  return reason !== undefined && Object.hasOwn(FINISH_REASON_BY_STOP_REASON, reason) ? FINISH_REASON_BY_STOP_REASON[reason as ConverseStopReason] : 'stop';
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/**
 * Converse's `inputTokens` leave out cache reads and writes (as Claude's `input_tokens` do); the
 * chat prompt counts every input token, with the cache reads again in `cached_tokens`.
 */
export function toChatUsageFromConverse(usage: ConverseUsage | undefined): OpenAIChatUsage {
  const read = count(usage?.cacheReadInputTokens);
  const prompt = count(usage?.inputTokens) + read + count(usage?.cacheWriteInputTokens);
  const completion = count(usage?.outputTokens);
  const chat: OpenAIChatUsage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (read > 0) chat.prompt_tokens_details = { cached_tokens: read };
  return chat;
}

/** Our usage: cache reads and (5-minute, Bedrock's only TTL in Converse) writes billed apart. */
export function toGatewayUsageFromConverse(usage: ConverseUsage | undefined): Usage {
  const chat = toChatUsageFromConverse(usage);
  const out: Usage = { promptTokens: chat.prompt_tokens, completionTokens: chat.completion_tokens, reasoningTokens: 0, totalTokens: chat.total_tokens };
  const read = count(usage?.cacheReadInputTokens);
  const write = count(usage?.cacheWriteInputTokens);
  if (read > 0) out.cachedTokens = read;
  if (write > 0) out.cacheWrite5mTokens = write;
  return out;
}
