import type { OpenAIChatUsage, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import type { Usage } from '../types.js';
import type { AnthropicStopReason } from './wire.js';

/**
 * Anthropic has no official mapping to OpenAI finish reasons; this is the one open-source
 * adapters use (vercel/ai map-anthropic-stop-reason.ts, anthropic.md "stop_reason values").
 * `pause_turn` (a paused server-tool turn) has no equivalent and reads as `stop`.
 */
const FINISH_REASON_BY_STOP_REASON = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
  pause_turn: 'stop',
} as const satisfies Record<AnthropicStopReason, OpenAIFinishReason>;

/** Unknown future stop reasons are read as `stop` rather than passed on as raw strings. */
export function mapStopReason(reason: string | null | undefined): OpenAIFinishReason | null {
  if (reason === null || reason === undefined) return null;
  return Object.hasOwn(FINISH_REASON_BY_STOP_REASON, reason) ? FINISH_REASON_BY_STOP_REASON[reason as AnthropicStopReason] : 'stop';
}

/** Token counts as Anthropic reports them; cached input is billed input, so it counts as prompt. */
export interface AnthropicTokenCounts {
  inputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  outputTokens: number;
}

/**
 * OpenAI's prompt_tokens include cached tokens (reported again in prompt_tokens_details), while
 * Anthropic's input_tokens exclude them, so the three input counts are added. Anthropic's
 * output_tokens already include thinking tokens but do not break them out, so no reasoning count.
 */
export function toChatUsage(counts: AnthropicTokenCounts): OpenAIChatUsage {
  const prompt = counts.inputTokens + counts.cacheCreationTokens + counts.cacheReadTokens;
  const usage: OpenAIChatUsage = { prompt_tokens: prompt, completion_tokens: counts.outputTokens, total_tokens: prompt + counts.outputTokens };
  if (counts.cacheReadTokens > 0) usage.prompt_tokens_details = { cached_tokens: counts.cacheReadTokens };
  return usage;
}

export function toGatewayUsage(counts: AnthropicTokenCounts): Usage {
  const chat = toChatUsage(counts);
  return { promptTokens: chat.prompt_tokens, completionTokens: chat.completion_tokens, reasoningTokens: 0, totalTokens: chat.total_tokens };
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Reads the counts of a Message `usage` (or a message_start's), tolerating nulls. */
export function tokenCountsOf(usage: Record<string, unknown> | null | undefined): AnthropicTokenCounts {
  return {
    inputTokens: count(usage?.input_tokens),
    cacheCreationTokens: count(usage?.cache_creation_input_tokens),
    cacheReadTokens: count(usage?.cache_read_input_tokens),
    outputTokens: count(usage?.output_tokens),
  };
}
