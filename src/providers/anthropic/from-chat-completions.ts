import { GatewayError } from '../../errors.js';
import { assertChatToolShapes } from '../../protocols/openai-chat/tool-shapes.js';
import { upstreamMessage, upstreamStatusError } from '../../providers/upstream-errors.js';
import type { OpenAIChatCompletion, OpenAIChatRequest, OpenAIChatTool, OpenAIChatToolCall } from '../../protocols/openai-chat/types.js';
import type { TranslateContext, TranslatorPair } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { ANTHROPIC_MESSAGES_PATH } from './endpoint.js';
import { clientMarksCache, placeCacheBreakpoints } from './cache-breakpoints.js';
import { createChatCompletionsStreamTranslator } from './from-chat-completions-stream.js';
import { mapStopReason, toChatUsage, toGatewayUsage, tokenCountsOf } from './response-mapping.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';
import type { AnthropicMessage, AnthropicMessagesRequest, AnthropicTool, AnthropicToolChoice } from './wire.js';

/**
 * Anthropic requires `max_tokens`. A chat-completions client may omit it; it then gets 8192, the
 * default the spec states for /v1/messages (whose validator fills it in before we get here).
 */
export const DEFAULT_MAX_TOKENS = 8192;

/**
 * Anthropic-native fields a client may add to a chat-shaped request; everything else stays here.
 * Not `metadata`: OpenAI clients use that name for free-form tags that Anthropic would refuse.
 */
const PASS_THROUGH_FIELDS = ['top_k', 'thinking'] as const;

/** Anthropic's temperature range is 0..1 (anthropic.md, request body). */
const ANTHROPIC_MAX_TEMPERATURE = 1;

/**
 * Chat-shaped requests (from /v1/chat/completions and /v1/messages) to the Anthropic Messages API.
 * Mapped: system/developer messages → `system`, `stop` → `stop_sequences`, `user` →
 * `metadata.user_id`, tools and tool_choice (`parallel_tool_calls: false` → `disable_parallel_tool_use`),
 * `response_format` json_schema → `output_config.format`. Dropped on purpose: `frequency_penalty` and
 * `presence_penalty`, which Anthropic has no equivalent for and rejects as unknown fields.
 * `temperature`: the spec's endpoints take OpenAI's 0..2 scale, Anthropic's ends at 1; values above
 * 1 are sent as 1 (its most varied setting) so every request the spec accepts is served.
 */
export const chatCompletionsToAnthropic: TranslatorPair<OpenAIChatRequest, OpenAIChatCompletion> = {
  toUpstream(req: OpenAIChatRequest, ctx: TranslateContext): UpstreamCall {
    rejectUnsupported(req);
    assertChatToolShapes(req);
    const { system, messages } = toAnthropicMessages(req.messages);
    const body: AnthropicMessagesRequest = {
      model: ctx.upstreamModel,
      max_tokens: req.max_completion_tokens ?? req.max_tokens ?? DEFAULT_MAX_TOKENS,
      messages,
    };
    if (system !== undefined) body.system = system;
    if (req.temperature !== undefined) body.temperature = Math.min(req.temperature, ANTHROPIC_MAX_TEMPERATURE);
    if (req.top_p !== undefined) body.top_p = req.top_p;
    if (req.stop !== undefined) body.stop_sequences = typeof req.stop === 'string' ? [req.stop] : [...req.stop];
    if (req.stream) body.stream = true;
    if (req.user !== undefined) body.metadata = { user_id: req.user };
    if (req.tools && req.tools.length > 0) body.tools = req.tools.map(toAnthropicTool);
    if (isObject(req.web_search_options)) body.tools = [...(body.tools ?? []), toAnthropicWebSearch(req.web_search_options)];
    if (req.tool_choice !== undefined || req.parallel_tool_calls === false) body.tool_choice = toAnthropicToolChoice(req.tool_choice ?? 'auto', req.parallel_tool_calls === false);
    const schema = req.response_format?.type === 'json_schema' ? (req.response_format.json_schema as { schema?: unknown } | undefined)?.schema : undefined;
    if (schema !== undefined) body.output_config = { format: { type: 'json_schema', schema } };
    if (ctx.promptCache !== 'off' && !clientMarksCache(req)) placeCacheBreakpoints(body);
    const extra: Record<string, unknown> = {};
    for (const field of PASS_THROUGH_FIELDS) if (req[field] !== undefined) extra[field] = req[field];
    return { method: 'POST', path: ANTHROPIC_MESSAGES_PATH, body: { ...body, ...extra } };
  },

  fromUpstream(res: unknown, ctx: TranslateContext): { body: OpenAIChatCompletion; usage: Usage } {
    const message = res as AnthropicMessage;
    if (!message || typeof message !== 'object' || !Array.isArray(message.content)) {
      throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a message without content');
    }
    let text = '';
    let reasoning = '';
    const toolCalls: OpenAIChatToolCall[] = [];
    for (const block of message.content) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'thinking') reasoning += block.thinking;
      else if (block.type === 'tool_use') {
        toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } });
      }
    }
    const counts = tokenCountsOf(message.usage);
    const body: OpenAIChatCompletion = {
      id: message.id,
      object: 'chat.completion',
      created: ctx.now,
      model: ctx.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: toolCalls.length > 0 && !text ? null : text,
            ...(reasoning ? { reasoning_content: reasoning } : {}),
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: mapStopReason(message.stop_reason),
        },
      ],
      usage: toChatUsage(counts),
    };
    return { body, usage: toGatewayUsage(counts) };
  },

  createStreamTranslator: createChatCompletionsStreamTranslator,

  /** Anthropic's body is `{type:"error",error:{type,message}}`; 529 (overloaded) becomes our 503. */
  fromUpstreamError(status: number, body: unknown): GatewayError {
    return upstreamStatusError(status, upstreamMessage(body));
  },
};

/** Features Anthropic cannot honour are refused rather than silently answered differently. */
function rejectUnsupported(req: OpenAIChatRequest): void {
  if (req.n !== undefined && req.n !== 1) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'n' must be 1 for this model: its upstream returns one choice", { param: 'n' });
  }
  const format = req.response_format;
  if (format?.type === 'json_schema' && (format.json_schema as { schema?: unknown } | undefined)?.schema === undefined) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'response_format.json_schema.schema' is required", { param: 'response_format.json_schema.schema' });
  }
  if (format !== undefined && format.type !== 'text' && format.type !== 'json_schema') {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'response_format' of type json_object is not supported for this model's upstream; use json_schema", { param: 'response_format' });
  }
  if (req.logprobs === true) {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'logprobs' is not supported for this model's upstream", { param: 'logprobs' });
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);

/**
 * OpenAI chat's `web_search_options` as Anthropic's hosted search, the `web_search` server tool
 * (the chat hub sends it for a Responses `web_search` tool); `allowed_domains` and an approximate
 * `user_location` carry over, the context size has no counterpart.
 */
function toAnthropicWebSearch(options: Record<string, unknown>): AnthropicTool {
  const tool: AnthropicTool = { type: 'web_search_20250305', name: 'web_search' } as AnthropicTool;
  if (Array.isArray(options.allowed_domains)) tool.allowed_domains = options.allowed_domains;
  const location = (options.user_location as { approximate?: Record<string, unknown> } | undefined)?.approximate;
  if (location) tool.user_location = { type: 'approximate', ...location };
  return tool;
}

/** Anthropic requires `input_schema`; a function declared without parameters takes an empty object. */
const toAnthropicTool = (tool: OpenAIChatTool): AnthropicTool => ({
  name: tool.function.name,
  ...(tool.function.description !== undefined ? { description: tool.function.description } : {}),
  input_schema: tool.function.parameters ?? { type: 'object', properties: {} },
});

/** `parallel_tool_calls: false` is Anthropic's `disable_parallel_tool_use: true`. */
function toAnthropicToolChoice(choice: NonNullable<OpenAIChatRequest['tool_choice']>, isSingleCall: boolean): AnthropicToolChoice {
  const single = isSingleCall ? { disable_parallel_tool_use: true } : {};
  if (typeof choice === 'object') return { type: 'tool', name: choice.function.name, ...single };
  switch (choice) {
    case 'none':
      return { type: 'none' };
    case 'required':
      return { type: 'any', ...single };
    default:
      return { type: 'auto', ...single };
  }
}
