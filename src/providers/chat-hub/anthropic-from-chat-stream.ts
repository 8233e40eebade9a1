import type { OutEvent } from '../../contracts/sse-event.js';
import type { OpenAIChatChunk, OpenAIChatDelta, OpenAIChatUsage, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import type { AnthropicContentBlock, AnthropicMessagesEvent } from '../../protocols/anthropic-messages/types.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { ChunkTranslator } from './compose.js';
import { messageIdFor, toAnthropicUsage, toStopReason } from './anthropic-from-chat.js';

type BlockKind = 'text' | 'thinking' | 'tool_use';

interface StreamState {
  /** message_start went out (with the first chunk). */
  isStarted: boolean;
  /** The content block receiving deltas, if one is open. */
  open: { index: number; kind: BlockKind } | undefined;
  /** Blocks started so far: the next block's index. */
  blockCount: number;
  /** Chat tool-call index → its tool_use block's index. */
  toolBlocks: Map<number, number>;
  finishReason: OpenAIFinishReason | null;
  /** The usage chunk's figures (the vendor's, as its chat pair reports them). */
  usage: OpenAIChatUsage | null | undefined;
}

/**
 * Chat chunks → Anthropic's named events (anthropic.md "Streaming"): `message_start` and a `ping`
 * first; then one content block at a time (`content_block_start`, its deltas, `content_block_stop`)
 * for reasoning (`thinking_delta`, when the client asked for thinking), text (`text_delta`) and each
 * tool call (`input_json_delta`); at the end `message_delta` with the stop reason and the usage
 * (cumulative, as Anthropic sends it), and `message_stop`.
 */
export function createAnthropicFromChatStream(ctx: TranslateContext): ChunkTranslator {
  const state: StreamState = { isStarted: false, open: undefined, blockCount: 0, toolBlocks: new Map(), finishReason: null, usage: undefined };
  const event = (data: AnthropicMessagesEvent): OutEvent => ({ event: data.type, data });

  function start(out: OutEvent[]): void {
    if (state.isStarted) return;
    state.isStarted = true;
    out.push(
      event({
        type: 'message_start',
        message: { id: messageIdFor(ctx), type: 'message', role: 'assistant', model: ctx.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
      }),
      event({ type: 'ping' }),
    );
  }

  function close(out: OutEvent[]): void {
    if (!state.open) return;
    out.push(event({ type: 'content_block_stop', index: state.open.index }));
    state.open = undefined;
  }

  /** Opens a block of this kind unless one is open already; returns its index. */
  function openBlock(out: OutEvent[], kind: BlockKind, block: AnthropicContentBlock): number {
    if (state.open?.kind === kind && kind !== 'tool_use') return state.open.index;
    close(out);
    const index = state.blockCount++;
    state.open = { index, kind };
    out.push(event({ type: 'content_block_start', index, content_block: block }));
    return index;
  }

  function onDelta(out: OutEvent[], delta: OpenAIChatDelta): void {
    if (delta.reasoning_content && !ctx.hidesReasoning) {
      const index = openBlock(out, 'thinking', { type: 'thinking', thinking: '', signature: '' });
      out.push(event({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: delta.reasoning_content } }));
    }
    if (delta.content) {
      const index = openBlock(out, 'text', { type: 'text', text: '' });
      out.push(event({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: delta.content } }));
    }
    for (const call of delta.tool_calls ?? []) {
      let index = state.toolBlocks.get(call.index);
      if (index === undefined) {
        index = openBlock(out, 'tool_use', { type: 'tool_use', id: call.id ?? '', name: call.function?.name ?? '', input: {} });
        state.toolBlocks.set(call.index, index);
      }
      const json = call.function?.arguments;
      if (json) out.push(event({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json } }));
    }
  }

  return {
    onChunk(chunk: OpenAIChatChunk): OutEvent[] {
      const out: OutEvent[] = [];
      start(out);
      if (chunk.usage) state.usage = chunk.usage;
      for (const choice of chunk.choices ?? []) {
        if (choice.index !== 0) continue;
        if (choice.delta) onDelta(out, choice.delta);
        if (choice.finish_reason) state.finishReason = choice.finish_reason;
      }
      return out;
    },
    onEnd(): OutEvent[] {
      const out: OutEvent[] = [];
      start(out);
      close(out);
      out.push(
        event({ type: 'message_delta', delta: { stop_reason: toStopReason(state.finishReason), stop_sequence: null }, usage: toAnthropicUsage(state.usage) }),
        event({ type: 'message_stop' }),
      );
      return out;
    },
  };
}
