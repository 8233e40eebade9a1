import type { ResponseCacheCodec } from '../../contracts/response-cache.js';
import { splitAtLastUserTurn, typedTextPart } from '../../cache/last-user-turn.js';
import type { OutEvent, SseEvent } from '../../contracts/sse-event.js';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicMessagesEvent } from '../../protocols/anthropic-messages/types.js';

/** A block being streamed: the block, and a tool call's input JSON so far (parsed once it stops). */
interface OpenBlock {
  block: Record<string, unknown>;
  inputJson: string;
}

/**
 * Anthropic-native /v1/messages answers in the response cache (issue 32): the named events add up
 * to the `message` they stream (thinking with its signature, text, tool_use with its input), and a
 * message replays as message_start, one start/delta/stop per block, message_delta and message_stop.
 */
export const anthropicCacheCodec: Required<ResponseCacheCodec> = {
  fromStream: anthropicMessageOfStream,
  toStream: anthropicEventsOf,
  hasClientToolCalls: (body) => (body as AnthropicMessage).content?.some((block) => block.type === 'tool_use') ?? false,
  splitLastUserTurn: (body) => splitAtLastUserTurn(body, 'messages', (m) => m.role === 'user', 'content', typedTextPart('text')),
};

function anthropicMessageOfStream(events: readonly SseEvent[]): AnthropicMessage | undefined {
  let message: AnthropicMessage | undefined;
  const open = new Map<number, OpenBlock>();
  const blocks: Array<Record<string, unknown>> = [];
  let isStopped = false;
  for (const { data } of events) {
    const event = JSON.parse(data) as AnthropicMessagesEvent;
    switch (event.type) {
      case 'message_start':
        message = { ...event.message, content: [] };
        break;
      case 'content_block_start': {
        const block = { ...(event.content_block as unknown as Record<string, unknown>) };
        open.set(event.index, { block, inputJson: '' });
        blocks[event.index] = block;
        break;
      }
      case 'content_block_delta': {
        const target = open.get(event.index);
        if (!target) return undefined;
        applyDelta(target, event.delta);
        break;
      }
      case 'content_block_stop': {
        const done = open.get(event.index);
        if (done && done.block.type === 'tool_use') done.block.input = done.inputJson === '' ? (done.block.input ?? {}) : JSON.parse(done.inputJson);
        open.delete(event.index);
        break;
      }
      case 'message_delta':
        if (!message) return undefined;
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence;
        message.usage = { ...message.usage, ...definedOf(event.usage) };
        break;
      case 'message_stop':
        isStopped = true;
        break;
      case 'error':
        return undefined;
      default:
        break;
    }
  }
  if (!message || !isStopped) return undefined;
  message.content = blocks.filter(Boolean) as unknown as AnthropicContentBlock[];
  return message;
}

function applyDelta(target: OpenBlock, delta: Extract<AnthropicMessagesEvent, { type: 'content_block_delta' }>['delta']): void {
  const block = target.block;
  switch (delta.type) {
    case 'text_delta':
      block.text = String(block.text ?? '') + delta.text;
      break;
    case 'thinking_delta':
      block.thinking = String(block.thinking ?? '') + delta.thinking;
      break;
    case 'signature_delta':
      block.signature = delta.signature;
      break;
    case 'input_json_delta':
      target.inputJson += delta.partial_json;
      break;
    case 'citations_delta':
      block.citations = [...((block.citations as unknown[] | undefined) ?? []), delta.citation];
      break;
  }
}

/** message_delta's usage is cumulative; a null field (not reported) must not clear message_start's. */
function definedOf(usage: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => value !== null && value !== undefined));
}

function anthropicEventsOf(body: unknown): OutEvent[] {
  const message = body as AnthropicMessage;
  const event = (data: { type: string } & Record<string, unknown>): OutEvent => ({ event: data.type, data });
  const start = { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...message.usage, output_tokens: 0 } };
  const out: OutEvent[] = [event({ type: 'message_start', message: start })];
  message.content.forEach((block, index) => {
    const [opening, deltas] = blockParts(block);
    out.push(event({ type: 'content_block_start', index, content_block: opening }));
    for (const delta of deltas) out.push(event({ type: 'content_block_delta', index, delta }));
    out.push(event({ type: 'content_block_stop', index }));
  });
  const { input_tokens: _input, ...usage } = message.usage;
  out.push(event({ type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence }, usage }));
  out.push(event({ type: 'message_stop' }));
  return out;
}

/** A block's opening (its fields with the streamed ones empty) and the deltas that fill it. */
function blockParts(block: AnthropicContentBlock): [Record<string, unknown>, Array<Record<string, unknown>>] {
  switch (block.type) {
    case 'text': {
      const { text, citations, ...rest } = block;
      const deltas: Array<Record<string, unknown>> = Array.isArray(citations) ? citations.map((citation: unknown) => ({ type: 'citations_delta', citation })) : [];
      return [{ ...rest, text: '' }, [...deltas, { type: 'text_delta', text }]];
    }
    case 'thinking':
      return [{ type: 'thinking', thinking: '', signature: '' }, [{ type: 'thinking_delta', thinking: block.thinking }, { type: 'signature_delta', signature: block.signature }]];
    case 'tool_use':
      return [{ ...block, input: {} }, [{ type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) }]];
    default:
      return [block as unknown as Record<string, unknown>, []];
  }
}
