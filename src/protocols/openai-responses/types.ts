/**
 * OpenAI Responses wire types (shared/protocols/openai.md §2), the format of POST /v1/responses
 * and of Ark's /api/v3/responses. Only the fields the gateway reads or writes are named; index
 * signatures carry the rest through untouched.
 */
import type { GatewayError } from '../../errors.js';
import type { OutEvent } from '../../contracts/sse-event.js';
import type { StreamTranslator, TranslateContext, TranslatorPair } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import { tokenCount } from '../openai-chat/types.js';

import type { OpenAIResponsesInputItem } from './input-items.js';

export type { OpenAIResponsesInputMessage, OpenAIResponsesInputPart, OpenAIResponsesRole } from './input-items.js';

/** Reasoning effort values of the official SDK (`ReasoningEffort`, openai v6). */
export const OPENAI_REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type OpenAIReasoningEffort = (typeof OPENAI_REASONING_EFFORTS)[number];
export const OPENAI_REASONING_SUMMARIES = ['auto', 'concise', 'detailed'] as const;

export interface OpenAIResponsesRequest {
  model: string;
  input: string | OpenAIResponsesInputItem[];
  instructions?: string;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  reasoning?: { effort?: OpenAIReasoningEffort | null; summary?: string | null; [extra: string]: unknown };
  stream?: boolean;
  [extra: string]: unknown;
}

export type OpenAIResponseStatus = 'completed' | 'failed' | 'in_progress' | 'cancelled' | 'queued' | 'incomplete';

export interface OpenAIOutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  [extra: string]: unknown;
}

export interface OpenAISummaryText {
  type: 'summary_text';
  text: string;
}

export interface OpenAIMessageItem {
  id: string;
  type: 'message';
  role: 'assistant';
  status: 'in_progress' | 'completed' | 'incomplete';
  content: OpenAIOutputText[];
  [extra: string]: unknown;
}

export interface OpenAIReasoningItem {
  id: string;
  type: 'reasoning';
  summary: OpenAISummaryText[];
  status?: 'in_progress' | 'completed' | 'incomplete';
  [extra: string]: unknown;
}

/**
 * A tool call the model asks for (openai.md §2 output items); `call_id` pairs it with its output,
 * `namespace` names the namespace tool that declared the function. Other item types (web search,
 * …) pass through untouched on the Ark path.
 */
export interface OpenAIFunctionCallItem {
  id: string;
  type: 'function_call';
  status: 'in_progress' | 'completed';
  call_id: string;
  name: string;
  arguments: string;
  namespace?: string;
}

export type OpenAIOutputItem = OpenAIMessageItem | OpenAIReasoningItem | OpenAIFunctionCallItem;

export interface OpenAIResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details?: { cached_tokens?: number; [extra: string]: unknown };
  output_tokens_details?: { reasoning_tokens?: number; [extra: string]: unknown };
  [extra: string]: unknown;
}

export type OpenAIIncompleteReason = 'max_output_tokens' | 'content_filter';

export interface OpenAIResponse {
  id: string;
  object: 'response';
  created_at: number;
  completed_at?: number | null;
  model: string;
  status: OpenAIResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: OpenAIIncompleteReason } | null;
  output: OpenAIOutputItem[];
  usage: OpenAIResponsesUsage | null;
  [extra: string]: unknown;
}

/** Stream events (openai.md §2 "Streaming events"); every payload carries `type` and `sequence_number`. */
export type OpenAIResponsesEvent =
  | { type: 'response.created' | 'response.in_progress' | 'response.completed' | 'response.incomplete' | 'response.failed'; sequence_number: number; response: OpenAIResponse }
  | { type: 'response.output_item.added' | 'response.output_item.done'; sequence_number: number; output_index: number; item: OpenAIOutputItem }
  | {
      type: 'response.content_part.added' | 'response.content_part.done';
      sequence_number: number;
      item_id: string;
      output_index: number;
      content_index: number;
      part: OpenAIOutputText;
    }
  | { type: 'response.output_text.delta'; sequence_number: number; item_id: string; output_index: number; content_index: number; delta: string; logprobs: unknown[] }
  | { type: 'response.output_text.done'; sequence_number: number; item_id: string; output_index: number; content_index: number; text: string; logprobs: unknown[] }
  | {
      type: 'response.reasoning_summary_part.added' | 'response.reasoning_summary_part.done';
      sequence_number: number;
      item_id: string;
      output_index: number;
      summary_index: number;
      part: OpenAISummaryText;
    }
  | { type: 'response.reasoning_summary_text.delta'; sequence_number: number; item_id: string; output_index: number; summary_index: number; delta: string }
  | { type: 'response.reasoning_summary_text.done'; sequence_number: number; item_id: string; output_index: number; summary_index: number; text: string }
  | { type: 'response.function_call_arguments.delta'; sequence_number: number; item_id: string; output_index: number; delta: string }
  | { type: 'response.function_call_arguments.done'; sequence_number: number; item_id: string; output_index: number; name: string; arguments: string }
  | { type: 'error'; sequence_number: number; code: string | null; message: string; param: string | null };

export type OpenAIResponsesEventType = OpenAIResponsesEvent['type'];

/** Events that end a Responses stream (openai.md §2 "Terminal alternatives"). */
export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/**
 * Our Usage from a Responses usage object (openai.md "ResponseUsage"): input tokens include the
 * cached ones and the cache writes (`input_tokens_details`), output tokens the reasoning tokens.
 */
export function usageFromResponses(usage: OpenAIResponsesUsage | null | undefined): Usage {
  const input = usage?.input_tokens ?? 0;
  const output = usage?.output_tokens ?? 0;
  const result: Usage = {
    promptTokens: input,
    completionTokens: output,
    reasoningTokens: usage?.output_tokens_details?.reasoning_tokens ?? 0,
    totalTokens: usage?.total_tokens ?? input + output,
  };
  const cached = tokenCount(usage?.input_tokens_details?.cached_tokens);
  const written = tokenCount(usage?.input_tokens_details?.cache_write_tokens);
  if (cached > 0) result.cachedTokens = cached;
  if (written > 0) result.cacheWrite5mTokens = written;
  return result;
}

/** A Responses stream translator must know how to fail mid-stream: its events are numbered. */
export interface ResponsesStreamTranslator extends StreamTranslator {
  onError(error: GatewayError): OutEvent[];
}

/** The shape of every (responses → vendor) pair (FamilyPairs['responses']). */
export interface ResponsesTranslatorPair extends TranslatorPair<OpenAIResponsesRequest, OpenAIResponse> {
  createStreamTranslator(ctx: TranslateContext): ResponsesStreamTranslator;
}
