import type { OpenAIChatUsage, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import type { Usage } from '../../contracts/usage.js';
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
  /** cache_creation_input_tokens: every token written to the cache. */
  cacheCreationTokens: number;
  /** Of those, the 1-hour writes (cache_creation.ephemeral_1h_input_tokens); the rest are 5-minute writes. */
  cacheWrite1hTokens: number;
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

/**
 * Our usage, each part billed apart (issue 21): cache reads at the read price, cache writes at the
 * 5-minute or 1-hour write price (anthropic.md "Usage fields"; the pricing page's multipliers).
 */
export function toGatewayUsage(counts: AnthropicTokenCounts): Usage {
  const chat = toChatUsage(counts);
  const usage: Usage = { promptTokens: chat.prompt_tokens, completionTokens: chat.completion_tokens, reasoningTokens: 0, totalTokens: chat.total_tokens };
  if (counts.cacheReadTokens > 0) usage.cachedTokens = counts.cacheReadTokens;
  const write5m = counts.cacheCreationTokens - counts.cacheWrite1hTokens;
  if (write5m > 0) usage.cacheWrite5mTokens = write5m;
  if (counts.cacheWrite1hTokens > 0) usage.cacheWrite1hTokens = counts.cacheWrite1hTokens;
  return usage;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * Reads the counts of a Message `usage` (or a message_start's), tolerating nulls. Without the
 * `cache_creation` breakdown every write is a 5-minute one (the default TTL); with it, the
 * 1-hour part is never more than the total.
 */
export function tokenCountsOf(usage: Record<string, unknown> | null | undefined): AnthropicTokenCounts {
  const cacheCreationTokens = count(usage?.cache_creation_input_tokens);
  const breakdown = usage?.cache_creation as Record<string, unknown> | null | undefined;
  return {
    inputTokens: count(usage?.input_tokens),
    cacheCreationTokens,
    cacheWrite1hTokens: Math.min(count(breakdown?.ephemeral_1h_input_tokens), cacheCreationTokens),
    cacheReadTokens: count(usage?.cache_read_input_tokens),
    outputTokens: count(usage?.output_tokens),
  };
}

/**
 * A stream's counts after a message_delta: its usage holds running totals (anthropic.md
 * "Streaming"), so a field it carries replaces the one message_start gave; absent fields stay.
 */
export function latestCounts(previous: AnthropicTokenCounts | undefined, usage: Record<string, unknown> | null | undefined): AnthropicTokenCounts {
  const base = previous ?? tokenCountsOf(undefined);
  const next = tokenCountsOf(usage);
  const has = (field: string): boolean => typeof usage?.[field] === 'number';
  const cacheCreationTokens = has('cache_creation_input_tokens') ? next.cacheCreationTokens : base.cacheCreationTokens;
  return {
    inputTokens: has('input_tokens') ? next.inputTokens : base.inputTokens,
    cacheCreationTokens,
    cacheWrite1hTokens: Math.min(usage?.cache_creation && typeof usage.cache_creation === 'object' ? next.cacheWrite1hTokens : base.cacheWrite1hTokens, cacheCreationTokens),
    cacheReadTokens: has('cache_read_input_tokens') ? next.cacheReadTokens : base.cacheReadTokens,
    outputTokens: has('output_tokens') ? next.outputTokens : base.outputTokens,
  };
}
