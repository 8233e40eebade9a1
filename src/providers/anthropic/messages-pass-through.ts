import { GatewayError } from '../../errors.js';
import { replaceTopLevelString } from '../../providers/json-text.js';
import { upstreamMessage, upstreamStatusError } from '../../providers/upstream-errors.js';
import type { SseEvent } from '../../contracts/sse-event.js';
import type { OutEvent } from '../../contracts/sse-event.js';
import type { AnthropicMessage, AnthropicMessagesRequest } from '../../protocols/anthropic-messages/types.js';
import type { StreamTranslator, TranslateContext, TranslatorPair } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { ANTHROPIC_MESSAGES_PATH } from './endpoint.js';
import { parseAnthropicEvent, streamError } from './stream-events.js';
import { latestCounts, toGatewayUsage, tokenCountsOf, type AnthropicTokenCounts } from './response-mapping.js';

/**
 * Anthropic-native /v1/messages to an Anthropic channel: the same protocol on both sides. The
 * client's body text goes upstream with only its model renamed (thinking blocks carry signatures
 * the vendor checks byte for byte), with the client's `anthropic-version`/`anthropic-beta` and
 * `?beta=true`; the answer and its events come back as sent, the model renamed to the public id.
 */
export const messagesPassThrough: TranslatorPair<AnthropicMessagesRequest, AnthropicMessage> = {
  toUpstream(req: AnthropicMessagesRequest, ctx: TranslateContext): UpstreamCall {
    const client = ctx.passThrough;
    const signed = withoutUnsignedThinking(req);
    const text = client?.text === undefined || signed !== req ? undefined : replaceTopLevelString(client.text, 'model', ctx.upstreamModel);
    const call: UpstreamCall = { method: 'POST', path: ANTHROPIC_MESSAGES_PATH, body: text ?? { ...signed, model: ctx.upstreamModel } };
    if (client?.headers) call.headers = { ...client.headers };
    if (client?.query) call.query = { ...client.query };
    return call;
  },

  fromUpstream(res: unknown, ctx: TranslateContext): { body: AnthropicMessage; usage: Usage } {
    const message = asMessage(res);
    return { body: { ...message, model: ctx.model }, usage: toGatewayUsage(tokenCountsOf(message.usage)) };
  },

  fromUpstreamText(text: string, ctx: TranslateContext): { text: string; usage: Usage } | undefined {
    const renamed = replaceTopLevelString(text, 'model', ctx.model);
    if (renamed === undefined) return undefined;
    const message = asMessage(parseJson(text));
    return { text: renamed, usage: toGatewayUsage(tokenCountsOf(message.usage)) };
  },

  createStreamTranslator: createMessagesPassThroughStream,

  fromUpstreamError(status: number, body: unknown): GatewayError {
    return upstreamStatusError(status, upstreamMessage(body));
  },
};

/**
 * The request without thinking blocks that carry no signature (issue 33; docs/decisions.md
 * "Thinking across vendors"): a conversation that began on a chat channel holds thinking the
 * gateway built from `reasoning_content`, with `signature: ""`, and Anthropic refuses the whole
 * request for one ("Invalid signature"). Only Anthropic can sign thinking, so such blocks are
 * dropped; a turn left empty keeps the thinking as text. The same request object when none is
 * found (the common case: a scan of block types, the client's bytes still sent as they are).
 */
export function withoutUnsignedThinking(req: AnthropicMessagesRequest): AnthropicMessagesRequest {
  const messages = req.messages as unknown as ReadonlyArray<{ role: string; content: unknown }>;
  if (!Array.isArray(messages) || !messages.some(hasUnsignedThinking)) return req;
  return { ...req, messages: messages.map((message) => (hasUnsignedThinking(message) ? dropUnsigned(message) : message)) as AnthropicMessagesRequest['messages'] };
}

type Block = { type?: unknown; thinking?: unknown; signature?: unknown };
const isUnsigned = (block: Block): boolean => block.type === 'thinking' && (typeof block.signature !== 'string' || block.signature === '');
const hasUnsignedThinking = (message: { role: string; content: unknown }): boolean =>
  message.role === 'assistant' && Array.isArray(message.content) && (message.content as Block[]).some((block) => !!block && isUnsigned(block));

function dropUnsigned(message: { role: string; content: unknown }): { role: string; content: unknown } {
  const blocks = message.content as Block[];
  const kept = blocks.filter((block) => !isUnsigned(block));
  if (kept.length > 0) return { ...message, content: kept };
  const text = blocks.map((block) => (typeof block.thinking === 'string' ? block.thinking : '')).join('\n\n');
  return { ...message, content: [{ type: 'text', text: text || '(no content)' }] };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a body that is not JSON', { cause: error });
  }
}

function asMessage(value: unknown): AnthropicMessage {
  const message = value as AnthropicMessage | null;
  if (!message || typeof message !== 'object' || message.type !== 'message' || !Array.isArray(message.content)) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a body that is not a message');
  }
  return message;
}

/** The events whose content the gateway reads (usage, the end, errors). */
const READ_EVENTS = new Set(['message_start', 'message_delta', 'message_stop', 'error']);

/**
 * Events pass as the upstream sent them (text untouched, so signature deltas are exact); only
 * `message_start` is rewritten, for the public model id. Usage is read from `message_start` and the
 * cumulative `message_delta`s; an `error` event fails the stream, which the family renders.
 */
function createMessagesPassThroughStream(ctx: TranslateContext): StreamTranslator {
  const state = {
    /** message_start sets the counts, each message_delta replaces what it carries. */
    counts: undefined as AnthropicTokenCounts | undefined,
    /** message_stop arrived; a stream that ends without it was cut. */
    isStopped: false,
  };
  return {
    onEvent(event: SseEvent): OutEvent[] {
      // Content deltas (nearly every event) are relayed without parsing.
      if (event.event !== undefined && !READ_EVENTS.has(event.event)) return [{ event: event.event, data: event.data }];
      const parsed = parseAnthropicEvent(event);
      if (!parsed) return event.data ? [{ event: event.event ?? 'unknown', data: event.data }] : [];
      switch (parsed.type) {
        case 'message_start':
          state.counts = tokenCountsOf(parsed.message.usage);
          return [{ event: 'message_start', data: { ...parsed, message: { ...parsed.message, model: ctx.model } } }];
        case 'message_delta':
          state.counts = latestCounts(state.counts, parsed.usage);
          break;
        case 'message_stop':
          state.isStopped = true;
          break;
        case 'error':
          throw streamError(parsed.error);
        default:
          break;
      }
      return [{ event: parsed.type, data: event.data }];
    },
    onEnd(): OutEvent[] {
      if (!state.isStopped) throw new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended before it was complete');
      return [];
    },
    usage: () => (state.counts ? toGatewayUsage(state.counts) : undefined),
  };
}
