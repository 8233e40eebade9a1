import { GatewayError } from '../../errors.js';
import type { OpenAIChatUsage } from '../../protocols/openai-chat/types.js';
import type {
  OpenAIIncompleteReason,
  OpenAIMessageItem,
  OpenAIOutputItem,
  OpenAIReasoningItem,
  OpenAIResponse,
  OpenAIResponsesUsage,
} from '../../protocols/openai-responses/types.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { OpenAICompatibleQuirks } from './quirks.js';

/** Building blocks of a Response made from chat-completion data (non-stream and stream alike). */

/** The ids of one translated response; derived from our request id, so they are stable per request. */
export interface ResponseIds {
  response: string;
  reasoning: string;
  message: string;
}

export function responseIdsFor(ctx: TranslateContext): ResponseIds {
  const base = ctx.requestId.replace(/^req_/, '');
  return { response: `resp_${base}`, reasoning: `rs_${base}`, message: `msg_${base}` };
}

export type ResponseEnding = { status: 'completed' } | { status: 'incomplete'; reason: OpenAIIncompleteReason };

const OPENAI_FINISH_REASONS = new Set<string>(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

/**
 * How a chat finish_reason ends the response: `length` is `incomplete` with reason
 * `max_output_tokens`, `content_filter` (or a vendor value the quirks map to it) `incomplete` with
 * reason `content_filter`; a vendor's failure reason is an upstream error; anything else completes.
 */
export function endingFor(reason: string | null | undefined, quirks: OpenAICompatibleQuirks): ResponseEnding {
  if (reason === null || reason === undefined) return { status: 'completed' };
  if (quirks.failureFinishReasons.includes(reason)) {
    throw new GatewayError('GW_UPSTREAM_ERROR', `The upstream provider failed to finish the generation (${reason})`);
  }
  const mapped = OPENAI_FINISH_REASONS.has(reason) ? reason : (quirks.extraFinishReasons[reason] ?? 'stop');
  switch (mapped) {
    case 'length':
      return { status: 'incomplete', reason: 'max_output_tokens' };
    case 'content_filter':
      return { status: 'incomplete', reason: 'content_filter' };
    default:
      return { status: 'completed' };
  }
}

export const reasoningItem = (id: string, text: string, status: 'in_progress' | 'completed'): OpenAIReasoningItem => ({
  id,
  type: 'reasoning',
  summary: status === 'in_progress' ? [] : [{ type: 'summary_text', text }],
  status,
});

export const messageItem = (id: string, text: string | undefined, status: OpenAIMessageItem['status']): OpenAIMessageItem => ({
  id,
  type: 'message',
  role: 'assistant',
  status,
  content: text === undefined ? [] : [{ type: 'output_text', text, annotations: [] }],
});

/** Chat usage in the Responses shape; reasoning tokens are 0 when the upstream reports none. */
export function toResponsesUsage(usage: OpenAIChatUsage | null | undefined): OpenAIResponsesUsage | null {
  if (!usage) return null;
  const out: OpenAIResponsesUsage = {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
  };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === 'number') out.input_tokens_details = { cached_tokens: cached };
  return out;
}

/**
 * A Response object. `created_at` and `completed_at` are the admission second: chat upstreams
 * report no completion time and translators read no clock (a documented approximation).
 */
export function responseObject(
  ids: ResponseIds,
  ctx: TranslateContext,
  state: { ending: ResponseEnding | undefined; output: OpenAIOutputItem[]; usage: OpenAIResponsesUsage | null },
): OpenAIResponse {
  const response: OpenAIResponse = {
    id: ids.response,
    object: 'response',
    created_at: ctx.now,
    ...(state.ending ? { completed_at: ctx.now } : {}),
    model: ctx.model,
    status: state.ending?.status ?? 'in_progress',
    error: null,
    incomplete_details: state.ending?.status === 'incomplete' ? { reason: state.ending.reason } : null,
    output: state.output,
    usage: state.usage,
  };
  return response;
}
