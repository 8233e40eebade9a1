import { GatewayError } from '../../errors.js';
import { upstreamMessage, upstreamStatusError } from '../../providers/upstream-errors.js';
import type { OpenAIChatCompletion, OpenAIChatMessage, OpenAIChatRequest } from '../../protocols/openai-chat/types.js';
import { usageFromOpenAI } from '../../protocols/openai-chat/types.js';
import type { OpenAIOutputItem, OpenAIResponse, OpenAIResponsesRequest, ResponsesTranslatorPair } from '../../protocols/openai-responses/types.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { createResponsesFromChatStreamTranslator } from './from-responses-stream.js';
import type { OpenAICompatibleQuirks } from './quirks.js';
import { endingFor, messageItem, reasoningItem, responseIdsFor, responseObject, toResponsesUsage } from './responses-from-chat.js';
import { inputItemsToChatMessages } from './responses-input-to-chat.js';
import { functionCallItems, toChatToolChoice, toChatTools, type ChatWebSearchMapping } from './responses-tools-via-chat.js';

/** How a chat-only OpenAI-compatible vendor takes what the Responses API asks for. */
export interface ResponsesViaChatQuirks {
  /** Role sent for `developer` input messages (vendors without that role get `system`). */
  readonly developerRoleAs: 'developer' | 'system';
  /**
   * How `reasoning.effort` reaches the upstream. `reasoning_effort`: OpenAI's chat field, value
   * as is. `thinking-switch`: the vendor has an on/off switch only (Zhipu's `thinking`), so
   * effort `none` sends `thinking: {type: "disabled"}` and other values leave the default.
   */
  readonly reasoningEffort: 'reasoning_effort' | 'thinking-switch';
  /**
   * The vendor takes earlier reasoning back as the assistant's `reasoning_content` (interleaved
   * thinking): reasoning input items become it. Otherwise they are left out (see responses-input-to-chat.ts).
   */
  readonly takesReasoningContent: boolean;
  /** How the vendor's chat API searches the web for a `web_search` tool; absent: such a tool is a 400. */
  readonly webSearch?: ChatWebSearchMapping;
  /** Request fields outside the Responses mapping that the vendor's chat API understands (allowlist). */
  readonly passThroughFields: readonly string[];
}

/**
 * Responses served by a chat-completions upstream: the request becomes a chat request, the chat
 * completion becomes a Response (reasoning item, then message item) and the chunk stream becomes
 * the full Responses event sequence (from-responses-stream.ts).
 */
export function responsesToOpenAICompatible(chatQuirks: OpenAICompatibleQuirks, quirks: ResponsesViaChatQuirks): ResponsesTranslatorPair {
  return {
    toUpstream(req: OpenAIResponsesRequest, ctx: TranslateContext): UpstreamCall {
      return { method: 'POST', path: '/chat/completions', body: toChatRequest(req, ctx, chatQuirks, quirks) };
    },

    fromUpstream(res: unknown, ctx: TranslateContext): { body: OpenAIResponse; usage: Usage } {
      const completion = res as OpenAIChatCompletion;
      const choice = completion && Array.isArray(completion.choices) ? completion.choices[0] : undefined;
      if (!choice) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a chat completion without choices');
      const ending = endingFor(choice.finish_reason, chatQuirks);
      const ids = responseIdsFor(ctx);
      const output: OpenAIOutputItem[] = [];
      if (choice.message.reasoning_content) output.push(reasoningItem(ids.reasoning, choice.message.reasoning_content, 'completed'));
      const calls = functionCallItems(choice.message.tool_calls);
      if (calls.length === 0 || choice.message.content) output.push(messageItem(ids.message, choice.message.content ?? '', ending.status));
      output.push(...calls);
      const body = responseObject(ids, ctx, { ending, output, usage: toResponsesUsage(completion.usage) });
      return { body, usage: usageFromOpenAI(completion.usage) };
    },

    createStreamTranslator: (ctx) => createResponsesFromChatStreamTranslator(ctx, chatQuirks),

    fromUpstreamError(status: number, body: unknown): GatewayError {
      return upstreamStatusError(status, upstreamMessage(body));
    },
  };
}

/**
 * `instructions` → a leading system message; string input → one user message; input items → chat
 * messages (responses-input-to-chat.ts); tools → chat tools (responses-tools-via-chat.ts);
 * max_output_tokens → max_tokens. A pure function of the request, so any chat-speaking channel can
 * serve Responses through it. Fields that only steer OpenAI's own service (store, include,
 * prompt_cache_key, client_metadata, metadata, truncation, service_tier, safety_identifier,
 * text.verbosity) change nothing a chat upstream answers and are not sent; the pass-through
 * allowlist names the vendor's own extras.
 */
export function toChatRequest(req: OpenAIResponsesRequest, ctx: TranslateContext, chatQuirks: OpenAICompatibleQuirks, quirks: ResponsesViaChatQuirks): OpenAIChatRequest {
  if ((req as { previous_response_id?: unknown }).previous_response_id != null) {
    // Chat completions keep no stored responses: ignoring the id would silently drop the context.
    throw new GatewayError(
      'GW_REQ_INVALID_PARAM',
      "'previous_response_id' is not supported for this model: its channel answers through chat completions, which store no responses. Send the whole conversation in 'input'.",
      { param: 'previous_response_id' },
    );
  }
  const include = (req as { include?: unknown }).include;
  if (Array.isArray(include) && include.includes('message.output_text.logprobs')) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'include' message.output_text.logprobs is not supported for this model (its channel answers through chat completions)", { param: 'include' });
  }
  const messages: OpenAIChatMessage[] = [];
  if (req.instructions) messages.push({ role: 'system', content: req.instructions });
  if (typeof req.input === 'string') messages.push({ role: 'user', content: req.input });
  else messages.push(...inputItemsToChatMessages(req.input, quirks));
  const body: OpenAIChatRequest = { model: ctx.upstreamModel, messages };
  for (const field of quirks.passThroughFields) {
    if (req[field] !== undefined) body[field] = req[field];
  }
  if (req.max_output_tokens !== undefined) body.max_tokens = req.max_output_tokens;
  const format = chatResponseFormat(req);
  if (format) body.response_format = format;
  const tools = toChatTools(req.tools, quirks.webSearch);
  if (tools.tools) body.tools = tools.tools;
  if (tools.fields) Object.assign(body, tools.fields);
  const toolChoice = toChatToolChoice(req.tool_choice);
  if (toolChoice !== undefined) body.tool_choice = toolChoice;
  if (typeof req.parallel_tool_calls === 'boolean') body.parallel_tool_calls = req.parallel_tool_calls;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.top_p !== undefined) body.top_p = req.top_p;
  const effort = req.reasoning?.effort;
  if (effort && quirks.reasoningEffort === 'reasoning_effort') body.reasoning_effort = effort;
  if (effort === 'none' && quirks.reasoningEffort === 'thinking-switch' && body.thinking === undefined) body.thinking = { type: 'disabled' };
  if (req.stream) {
    body.stream = true;
    // Usage arrives on the final chunk unasked for some vendors; the others must be asked.
    if (chatQuirks.streamUsage === 'stream-options') body.stream_options = { include_usage: true };
  }
  return body;
}

/** Responses' `text.format` as chat's `response_format` (structured output keeps working through translation). */
function chatResponseFormat(req: OpenAIResponsesRequest): OpenAIChatRequest['response_format'] | undefined {
  const format = (req as { text?: { format?: { type?: string; name?: string; schema?: unknown; strict?: boolean } } }).text?.format;
  if (format?.type === 'json_schema') return { type: 'json_schema', json_schema: { name: format.name ?? 'response', schema: format.schema, ...(format.strict !== undefined ? { strict: format.strict } : {}) } } as OpenAIChatRequest['response_format'];
  if (format?.type === 'json_object') return { type: 'json_object' };
  return undefined;
}

export { toChatPart } from './responses-input-to-chat.js';
