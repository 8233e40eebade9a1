import type { Usage } from '../../contracts/usage.js';
/**
 * OpenAI Chat Completions wire types (shared/protocols/openai.md §1): the hub format for
 * chat-shaped traffic. Only the fields the gateway reads or writes are named; the index
 * signatures carry the rest through untouched.
 */
export type OpenAIChatRole = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export type OpenAIChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: 'video_url'; video_url: { url: string; fps?: number } };

export interface OpenAIChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
  /**
   * Gemini 3's thought signature for this call, where Google's own OpenAI-compatible API puts it;
   * clients send the assistant message back as they got it, so multi-turn tool use keeps it.
   */
  extra_content?: { google?: { thought_signature?: string } };
}

export interface OpenAIChatMessage {
  role: OpenAIChatRole;
  content: string | OpenAIChatContentPart[] | null;
  name?: string;
  tool_calls?: OpenAIChatToolCall[];
  tool_call_id?: string;
  reasoning_content?: string;
  [extra: string]: unknown;
}

export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export interface OpenAIChatRequest {
  model: string;
  messages: OpenAIChatMessage[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean; [extra: string]: unknown };
  stop?: string | string[];
  n?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  response_format?: { type: string; [extra: string]: unknown };
  tools?: OpenAIChatTool[];
  tool_choice?: string | { type: 'function'; function: { name: string } };
  user?: string;
  [extra: string]: unknown;
}

export type OpenAIFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface OpenAIChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; [extra: string]: unknown };
  completion_tokens_details?: { reasoning_tokens?: number; [extra: string]: unknown };
  [extra: string]: unknown;
}

export interface OpenAIChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; reasoning_content?: string; tool_calls?: OpenAIChatToolCall[]; [extra: string]: unknown };
    finish_reason: OpenAIFinishReason | null;
    logprobs?: unknown;
    [extra: string]: unknown;
  }>;
  usage?: OpenAIChatUsage;
  [extra: string]: unknown;
}

export interface OpenAIChatDelta {
  role?: 'assistant';
  content?: string | null;
  reasoning_content?: string | null;
  tool_calls?: Array<{ index: number; id?: string; type?: 'function'; function?: { name?: string; arguments?: string }; extra_content?: OpenAIChatToolCall['extra_content'] }>;
  [extra: string]: unknown;
}

export interface OpenAIChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{ index: number; delta: OpenAIChatDelta; finish_reason: OpenAIFinishReason | null; logprobs?: unknown; [extra: string]: unknown }>;
  usage?: OpenAIChatUsage | null;
  [extra: string]: unknown;
}

/** OpenAI error body (openai.md §1 "Error body"). */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/**
 * Our Usage from an OpenAI usage object (openai.md "Usage"): prompt_tokens include the cached
 * ones (`prompt_tokens_details.cached_tokens`) and the ones written to the cache
 * (`cache_write_tokens`); completion_tokens include `reasoning_tokens`. Ark, Zhipu and DashScope
 * report the same shape.
 */
export function usageFromOpenAI(usage: OpenAIChatUsage | null | undefined): Usage {
  const prompt = usage?.prompt_tokens ?? 0;
  const completion = usage?.completion_tokens ?? 0;
  const result: Usage = {
    promptTokens: prompt,
    completionTokens: completion,
    reasoningTokens: usage?.completion_tokens_details?.reasoning_tokens ?? 0,
    totalTokens: usage?.total_tokens ?? prompt + completion,
  };
  const cached = tokenCount(usage?.prompt_tokens_details?.cached_tokens);
  const written = tokenCount(usage?.prompt_tokens_details?.cache_write_tokens);
  if (cached > 0) result.cachedTokens = cached;
  if (written > 0) result.cacheWrite5mTokens = written;
  return result;
}

/** A count from a vendor's details object; anything else (null, a string) is none. */
export const tokenCount = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);
