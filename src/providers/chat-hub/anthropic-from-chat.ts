import { GatewayError } from '../../errors.js';
import type { OpenAIChatCompletion, OpenAIChatUsage, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicStopReason, AnthropicUsage } from '../../protocols/anthropic-messages/types.js';
import type { TranslateContext } from '../../contracts/translator.js';

/**
 * Chat finish reasons as Anthropic stop reasons: the reverse of the mapping open-source adapters
 * use (anthropic.md "stop_reason values"). Chat does not say which stop sequence matched, so a
 * `stop` reads as `end_turn`.
 */
const STOP_REASON_BY_FINISH_REASON = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
} as const satisfies Record<OpenAIFinishReason, AnthropicStopReason>;

export const toStopReason = (reason: OpenAIFinishReason | null | undefined): AnthropicStopReason =>
  reason ? STOP_REASON_BY_FINISH_REASON[reason] : 'end_turn';

/** Anthropic's message id for our request (chat ids are the upstream's, in another shape). */
export const messageIdFor = (ctx: TranslateContext): string => `msg_${ctx.requestId.replace(/^req_/, '')}`;

/**
 * Chat usage in Anthropic's shape: Anthropic's `input_tokens` leave out cache reads, which it
 * reports apart, while chat's `prompt_tokens` include them (`prompt_tokens_details.cached_tokens`).
 */
export function toAnthropicUsage(usage: OpenAIChatUsage | null | undefined): AnthropicUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached),
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

/** Tool arguments arrive as JSON text; Anthropic's `input` is the object. */
export function toolInput(text: string | undefined): unknown {
  if (!text) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned tool arguments that are not JSON', { cause: error });
  }
}

/**
 * A chat completion as an Anthropic message: reasoning → a `thinking` block (when the client asked
 * for thinking; its signature is empty, as only Anthropic signs), content → a `text` block, tool
 * calls → `tool_use` blocks. An answer with nothing in it keeps one empty text block, as clients
 * read `content[0]`.
 */
export function chatCompletionToAnthropic(completion: OpenAIChatCompletion, ctx: TranslateContext): AnthropicMessage {
  const choice = completion.choices[0];
  if (!choice) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a chat completion without choices');
  const { message } = choice;
  const content: AnthropicContentBlock[] = [];
  if (message.reasoning_content && !ctx.hidesReasoning) content.push({ type: 'thinking', thinking: message.reasoning_content, signature: '' });
  if (message.content) content.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls ?? []) content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
  if (content.length === 0) content.push({ type: 'text', text: '' });
  return {
    id: messageIdFor(ctx),
    type: 'message',
    role: 'assistant',
    model: ctx.model,
    content,
    stop_reason: toStopReason(choice.finish_reason),
    stop_sequence: null,
    usage: toAnthropicUsage(completion.usage),
  };
}
