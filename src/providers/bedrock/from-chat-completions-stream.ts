import { GatewayError } from '../../errors.js';
import type { OutEvent, SseEvent } from '../../contracts/sse-event.js';
import type { OpenAIChatChunk, OpenAIChatDelta, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import type { StreamTranslator, TranslateContext } from '../../contracts/translator.js';
import { mapConverseStopReason, toChatUsageFromConverse, toGatewayUsageFromConverse } from './converse-usage.js';
import { bedrockStreamError } from './errors.js';
import { EXCEPTION_EVENT } from './event-stream.js';
import type { ConverseStreamEvents, ConverseUsage } from './wire.js';

interface StreamState {
  /** Content block index → index in our `tool_calls` array, for toolUse blocks. */
  toolIndexByBlock: Map<number, number>;
  /** messageStop arrived (its finish chunk was sent); a stream that ends without it was cut. */
  isStopped: boolean;
  /** From the metadata event, which follows messageStop. */
  usage: ConverseUsage | undefined;
}

/**
 * ConverseStream events (decoded from the event stream into named SSE events) → chat chunks. The
 * finish chunk leaves on messageStop; the usage chunk, when asked for, on the metadata event
 * that follows it; `[DONE]` in onEnd. Exception events fail the stream with the matching status.
 */
export function createConverseStreamTranslator(ctx: TranslateContext): StreamTranslator {
  const state: StreamState = { toolIndexByBlock: new Map(), isStopped: false, usage: undefined };
  const id = `chatcmpl-${ctx.requestId}`;

  const chunk = (delta: OpenAIChatDelta, finishReason: OpenAIFinishReason | null = null): OutEvent => {
    const data: OpenAIChatChunk = { id, object: 'chat.completion.chunk', created: ctx.now, model: ctx.model, choices: [{ index: 0, delta, finish_reason: finishReason }] };
    if (ctx.includeUsage) data.usage = null;
    return { data };
  };

  function onBlockStart(event: ConverseStreamEvents['contentBlockStart']): OutEvent[] {
    const tool = event.start?.toolUse;
    if (!tool) return [];
    const toolIndex = state.toolIndexByBlock.size;
    state.toolIndexByBlock.set(event.contentBlockIndex, toolIndex);
    return [chunk({ tool_calls: [{ index: toolIndex, id: tool.toolUseId, type: 'function', function: { name: tool.name, arguments: '' } }] })];
  }

  function onBlockDelta(event: ConverseStreamEvents['contentBlockDelta']): OutEvent[] {
    const delta = event.delta;
    if (typeof delta?.text === 'string') return delta.text ? [chunk({ content: delta.text })] : [];
    if (delta?.toolUse) {
      const toolIndex = state.toolIndexByBlock.get(event.contentBlockIndex);
      return toolIndex === undefined ? [] : [chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.toolUse.input ?? '' } }] })];
    }
    // Signatures and redacted reasoning have no chat counterpart.
    const reasoning = delta?.reasoningContent?.text;
    return reasoning && !ctx.hidesReasoning ? [chunk({ reasoning_content: reasoning })] : [];
  }

  return {
    onEvent(event: SseEvent): OutEvent[] {
      if (event.event === EXCEPTION_EVENT) throw bedrockStreamError(event.data);
      switch (event.event) {
        case 'messageStart':
          return [chunk({ role: 'assistant', content: '' })];
        case 'contentBlockStart':
          return onBlockStart(payload<'contentBlockStart'>(event));
        case 'contentBlockDelta':
          return onBlockDelta(payload<'contentBlockDelta'>(event));
        case 'messageStop':
          state.isStopped = true;
          return [chunk({}, mapConverseStopReason(payload<'messageStop'>(event).stopReason))];
        case 'metadata':
          state.usage = payload<'metadata'>(event).usage;
          if (!ctx.includeUsage || !state.usage) return [];
          return [{ data: { id, object: 'chat.completion.chunk', created: ctx.now, model: ctx.model, choices: [], usage: toChatUsageFromConverse(state.usage) } }];
        default:
          // contentBlockStop, and event types Bedrock may add.
          return [];
      }
    },
    onEnd(): OutEvent[] {
      if (!state.isStopped) throw new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended before it was complete');
      return [{ data: '[DONE]' }];
    },
    usage: () => (state.usage ? toGatewayUsageFromConverse(state.usage) : undefined),
  };
}

function payload<K extends keyof ConverseStreamEvents>(event: SseEvent): ConverseStreamEvents[K] {
  let value: unknown;
  try {
    value = JSON.parse(event.data);
  } catch {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event that is not JSON');
  }
  if (!value || typeof value !== 'object') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', `The upstream sent a malformed ${event.event} event`);
  return value as ConverseStreamEvents[K];
}
