import { GatewayError } from '../../errors.js';
import type { SseEvent } from '../../contracts/sse-event.js';
import type { OutEvent } from '../../contracts/sse-event.js';
import type { OpenAIChatChunk, OpenAIChatDelta, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import type { StreamTranslator, TranslateContext } from '../../contracts/translator.js';
import { latestCounts, mapStopReason, toChatUsage, toGatewayUsage, tokenCountsOf, type AnthropicTokenCounts } from './response-mapping.js';
import { parseAnthropicEvent, streamError } from './stream-events.js';
import type { AnthropicBlockDelta, AnthropicContentBlock } from './wire.js';

interface StreamState {
  /** The upstream message id from message_start; every chunk carries it. */
  id: string;
  /** Token counts: message_start sets them, each message_delta REPLACES them (cumulative, never summed). */
  counts: AnthropicTokenCounts | undefined;
  /** stop_reason of the latest message_delta that carried one. */
  stopReason: string | null;
  /** Content block index → index in our `tool_calls` array, for tool_use blocks. */
  toolIndexByBlock: Map<number, number>;
  /** message_stop arrived; a stream that ends without it was cut. */
  isStopped: boolean;
}

/**
 * Anthropic's named events (anthropic.md "Streaming") → chat.completion.chunk events. The finish
 * chunk (and the usage chunk, when asked for) leaves on message_stop, once the usage is final;
 * `[DONE]` leaves in onEnd. `ping` and unknown future event types are skipped.
 */
export function createChatCompletionsStreamTranslator(ctx: TranslateContext): StreamTranslator {
  const state: StreamState = { id: '', counts: undefined, stopReason: null, toolIndexByBlock: new Map(), isStopped: false };

  const chunk = (delta: OpenAIChatDelta, finishReason: OpenAIFinishReason | null = null): OutEvent => {
    const data: OpenAIChatChunk = {
      id: state.id,
      object: 'chat.completion.chunk',
      created: ctx.now,
      model: ctx.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    };
    if (ctx.includeUsage) data.usage = null;
    return { data };
  };

  function onMessageStop(): OutEvent[] {
    state.isStopped = true;
    const out = [chunk({}, mapStopReason(state.stopReason))];
    if (ctx.includeUsage && state.counts) {
      out.push({ data: { id: state.id, object: 'chat.completion.chunk', created: ctx.now, model: ctx.model, choices: [], usage: toChatUsage(state.counts) } });
    }
    return out;
  }

  function onBlockStart(index: number, block: AnthropicContentBlock): OutEvent[] {
    switch (block.type) {
      case 'text':
        return block.text ? [chunk({ content: block.text })] : [];
      case 'thinking':
        return block.thinking ? [chunk({ reasoning_content: block.thinking })] : [];
      case 'tool_use': {
        const toolIndex = state.toolIndexByBlock.size;
        state.toolIndexByBlock.set(index, toolIndex);
        return [chunk({ tool_calls: [{ index: toolIndex, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] })];
      }
      default:
        return [];
    }
  }

  function onBlockDelta(index: number, delta: AnthropicBlockDelta): OutEvent[] {
    switch (delta.type) {
      case 'text_delta':
        return [chunk({ content: delta.text })];
      case 'thinking_delta':
        return [chunk({ reasoning_content: delta.thinking })];
      case 'input_json_delta': {
        const toolIndex = state.toolIndexByBlock.get(index);
        return toolIndex === undefined ? [] : [chunk({ tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }] })];
      }
      default:
        // signature_delta and citations_delta have no chat-completions counterpart.
        return [];
    }
  }

  return {
    onEvent(event: SseEvent): OutEvent[] {
      const parsed = parseAnthropicEvent(event);
      switch (parsed?.type) {
        case undefined:
          return [];
        case 'message_start':
          state.id = parsed.message.id;
          state.counts = tokenCountsOf(parsed.message.usage);
          return [chunk({ role: 'assistant', content: '' })];
        case 'content_block_start':
          return onBlockStart(parsed.index, parsed.content_block);
        case 'content_block_delta':
          return onBlockDelta(parsed.index, parsed.delta);
        case 'message_delta':
          if (parsed.delta.stop_reason) state.stopReason = parsed.delta.stop_reason;
          state.counts = latestCounts(state.counts, parsed.usage);
          return [];
        case 'message_stop':
          return onMessageStop();
        case 'error':
          throw streamError(parsed.error);
        default:
          return [];
      }
    },
    onEnd(): OutEvent[] {
      if (!state.isStopped) throw new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended before it was complete');
      return [{ data: '[DONE]' }];
    },
    usage: () => (state.counts ? toGatewayUsage(state.counts) : undefined),
  };
}
