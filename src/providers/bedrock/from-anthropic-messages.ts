import { GatewayError } from '../../errors.js';
import type { OutEvent, SseEvent } from '../../contracts/sse-event.js';
import type { AnthropicMessage, AnthropicMessagesRequest } from '../../protocols/anthropic-messages/types.js';
import type { StreamTranslator, TranslateContext, TranslatorPair } from '../../contracts/translator.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { messagesPassThrough } from '../anthropic/messages-pass-through.js';
import { anthropicViaChat } from '../chat-hub/anthropic-via-chat.js';
import { viaChatHub } from '../chat-hub/compose.js';
import { BEDROCK_ANTHROPIC_VERSION, bedrockPath, EVENT_STREAM_TYPE, isAnthropicModel } from './endpoint.js';
import { bedrockStreamError, bedrockUpstreamError } from './errors.js';
import { createEventStreamDecoder } from './event-stream.js';
import { chatCompletionsToBedrock } from './from-chat-completions.js';

/** Other Bedrock models answer Anthropic-native clients through Converse and the chat hub. */
const viaConverse = viaChatHub(anthropicViaChat, chatCompletionsToBedrock);

/**
 * Anthropic-native /v1/messages (Claude Code, the Anthropic SDKs) on Bedrock. Claude models get the
 * client's Messages body through InvokeModel / InvokeModelWithResponseStream, as
 * @anthropic-ai/bedrock-sdk sends it: without `model` and `stream` (the model is in the URL, the
 * operation says whether it streams), with `anthropic_version: bedrock-2023-05-31` and the
 * client's `anthropic-beta` header as the body's `anthropic_beta` list. Everything else (cache_control,
 * thinking blocks and their signatures, tools) goes as the client sent it; the answer is Claude's own
 * Message or event stream, relayed as the Anthropic pass-through does. Other models go through Converse.
 */
export const anthropicMessagesToBedrock: TranslatorPair<AnthropicMessagesRequest, AnthropicMessage> = {
  toUpstream(req: AnthropicMessagesRequest, ctx: TranslateContext): UpstreamCall {
    if (!isAnthropicModel(ctx.upstreamModel)) return viaConverse.toUpstream(req, ctx);
    const body = clientBody(req, ctx);
    delete body.model;
    delete body.stream;
    body.anthropic_version = BEDROCK_ANTHROPIC_VERSION;
    const betas = betasOf(ctx.passThrough?.headers?.['anthropic-beta']);
    if (betas.length > 0) body.anthropic_beta = [...new Set([...(Array.isArray(body.anthropic_beta) ? (body.anthropic_beta as string[]) : []), ...betas])];
    if (!req.stream) return { method: 'POST', path: bedrockPath(ctx.upstreamModel, 'invoke'), body: JSON.stringify(body), headers: { accept: 'application/json' } };
    return {
      method: 'POST',
      path: bedrockPath(ctx.upstreamModel, 'invoke-with-response-stream'),
      body: JSON.stringify(body),
      stream: true,
      // The HTTP answer is an event stream; the model's own content type inside it is JSON.
      headers: { accept: EVENT_STREAM_TYPE, 'x-amzn-bedrock-accept': 'application/json' },
    };
  },

  fromUpstream: (res, ctx) => (isAnthropicModel(ctx.upstreamModel) ? messagesPassThrough.fromUpstream(res, ctx) : viaConverse.fromUpstream(res, ctx)),

  fromUpstreamText(text, ctx) {
    return isAnthropicModel(ctx.upstreamModel) ? messagesPassThrough.fromUpstreamText?.(text, ctx) : undefined;
  },

  createStreamTranslator(ctx: TranslateContext): StreamTranslator {
    if (!isAnthropicModel(ctx.upstreamModel)) return viaConverse.createStreamTranslator(ctx);
    const inner = messagesPassThrough.createStreamTranslator(ctx);
    return {
      onEvent(event: SseEvent): OutEvent[] {
        if (event.event === 'exception') throw bedrockStreamError(event.data);
        return inner.onEvent(event.event === 'message_stop' ? withoutInvocationMetrics(event) : event);
      },
      onEnd: () => inner.onEnd(),
      usage: () => inner.usage(),
    };
  },

  createStreamDecoder: createEventStreamDecoder,
  fromUpstreamError: bedrockUpstreamError,
};

const INVOCATION_METRICS = 'amazon-bedrock-invocationMetrics';

/**
 * Bedrock adds its invocation metrics to Claude's last event (clouds.md §2 "Claude via
 * InvokeModel"); Anthropic's message_stop carries none (anthropic.md), and the client is not told
 * which cloud served it.
 */
function withoutInvocationMetrics(event: SseEvent): SseEvent {
  if (!event.data.includes(INVOCATION_METRICS)) return event;
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.data);
  } catch {
    return event;
  }
  if (!parsed || typeof parsed !== 'object') return event;
  const { [INVOCATION_METRICS]: _metrics, ...rest } = parsed as Record<string, unknown>;
  return { ...event, data: JSON.stringify(rest) };
}

/** The client's body as sent (its text, so nothing is re-typed on the way), else the validated request. */
function clientBody(req: AnthropicMessagesRequest, ctx: TranslateContext): Record<string, unknown> {
  const text = ctx.passThrough?.text;
  if (text === undefined) return { ...(req as unknown as Record<string, unknown>) };
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new GatewayError('GW_REQ_INVALID_JSON', 'The request body is not valid JSON', { cause: error });
  }
}

const betasOf = (header: string | undefined): string[] =>
  (header ?? '')
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => beta !== '');
