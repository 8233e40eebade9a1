import { GatewayError } from '../../errors.js';
import type { SseEvent } from '../../contracts/sse-event.js';
import type { OutEvent } from '../../contracts/sse-event.js';
import { usageFromOpenAI, type OpenAIChatUsage } from '../../protocols/openai-chat/types.js';
import { responseFailedEvent } from '../../protocols/openai-responses/failed-event.js';
import type { OpenAIOutputItem, OpenAIResponsesEvent, ResponsesStreamTranslator } from '../../protocols/openai-responses/types.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { OpenAICompatibleQuirks } from './quirks.js';
import { parseChatChunk } from './parse-chat-chunk.js';
import {
  endingFor,
  messageItem,
  reasoningItem,
  responseIdsFor,
  responseObject,
  toResponsesUsage,
  type ResponseEnding,
  type ResponseIds,
} from './responses-from-chat.js';
import { functionCallItems } from './responses-tools-via-chat.js';
import type { OpenAIChatToolCall } from '../../protocols/openai-chat/types.js';

/** Payload of one event before it is numbered (Omit applied to each member of the union). */
type Unnumbered = OpenAIResponsesEvent extends infer E ? (E extends unknown ? Omit<E, 'sequence_number'> : never) : never;

interface ResponsesFromChatState {
  /** The sequence_number the next event gets (numbering starts at 0, as OpenAI's does). */
  nextSequence: number;
  /** response.created and response.in_progress have been sent. */
  hasStarted: boolean;
  /** The reasoning item, once reasoning_content arrived: its output_index, text so far, and whether it is done. */
  reasoning: { outputIndex: number; text: string; isDone: boolean } | undefined;
  /** The message item, once content arrived (or at the end): its output_index and text so far. */
  message: { outputIndex: number; text: string } | undefined;
  /** Items already finished with output_item.done, in output order. */
  output: OpenAIOutputItem[];
  /** How the response ends, from the first choice's finish_reason (undefined until seen). */
  ending: ResponseEnding | undefined;
  /** The upstream's usage (cumulative totals: the last one seen wins, never summed). */
  rawUsage: OpenAIChatUsage | undefined;
  /** The upstream sent `[DONE]`; without it the stream was cut. */
  isDone: boolean;
  /** Tool calls assembled from `delta.tool_calls` by their index; sent as function_call items at the end. */
  toolCalls: OpenAIChatToolCall[];
}

/**
 * Chat chunks → the full Responses event sequence (openai.md §2): response.created,
 * response.in_progress, the reasoning item's events (summary part and text deltas) when the
 * upstream thinks aloud in `reasoning_content`, the message item's events, then
 * response.completed or response.incomplete with the whole output and usage. No `[DONE]`.
 */
export function createResponsesFromChatStreamTranslator(ctx: TranslateContext, quirks: OpenAICompatibleQuirks): ResponsesStreamTranslator {
  return new ResponsesFromChatStream(ctx, quirks);
}

class ResponsesFromChatStream implements ResponsesStreamTranslator {
  private readonly ids: ResponseIds;
  private readonly state: ResponsesFromChatState = {
    nextSequence: 0,
    hasStarted: false,
    reasoning: undefined,
    message: undefined,
    output: [],
    ending: undefined,
    rawUsage: undefined,
    isDone: false,
    toolCalls: [],
  };

  constructor(
    private readonly ctx: TranslateContext,
    private readonly quirks: OpenAICompatibleQuirks,
  ) {
    this.ids = responseIdsFor(ctx);
  }

  onEvent(event: SseEvent): OutEvent[] {
    if (this.state.isDone) return [];
    if (event.data === '[DONE]') {
      this.state.isDone = true;
      return this.finish();
    }
    const chunk = parseChatChunk(event.data);
    if (chunk.usage) this.state.rawUsage = chunk.usage;
    const out = this.start();
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return out;
    if (choice.delta?.reasoning_content) out.push(...this.reasoningDelta(choice.delta.reasoning_content));
    if (choice.delta?.content) out.push(...this.textDelta(choice.delta.content));
    for (const piece of choice.delta?.tool_calls ?? []) this.collectToolCall(piece);
    if (choice.finish_reason) this.state.ending = endingFor(choice.finish_reason, this.quirks);
    return out;
  }

  onEnd(): OutEvent[] {
    if (!this.state.isDone) throw new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended before the response was complete');
    return [];
  }

  onError(error: GatewayError): OutEvent[] {
    const { id, created_at, model } = this.snapshot();
    return [responseFailedEvent({ id, created_at, model, output: [...this.state.output] }, error, this.state.nextSequence++)];
  }

  usage(): Usage | undefined {
    return this.state.rawUsage ? usageFromOpenAI(this.state.rawUsage) : undefined;
  }

  private emit(payload: Unnumbered): OutEvent {
    return { event: payload.type, data: { ...payload, sequence_number: this.state.nextSequence++ } };
  }

  private snapshot() {
    return responseObject(this.ids, this.ctx, { ending: undefined, output: [...this.state.output], usage: null });
  }

  private start(): OutEvent[] {
    if (this.state.hasStarted) return [];
    this.state.hasStarted = true;
    return [this.emit({ type: 'response.created', response: this.snapshot() }), this.emit({ type: 'response.in_progress', response: this.snapshot() })];
  }

  private reasoningDelta(delta: string): OutEvent[] {
    const out: OutEvent[] = [];
    const id = this.ids.reasoning;
    if (!this.state.reasoning) {
      this.state.reasoning = { outputIndex: this.state.output.length, text: '', isDone: false };
      const outputIndex = this.state.reasoning.outputIndex;
      out.push(this.emit({ type: 'response.output_item.added', output_index: outputIndex, item: reasoningItem(id, '', 'in_progress') }));
      out.push(this.emit({ type: 'response.reasoning_summary_part.added', item_id: id, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text: '' } }));
    }
    this.state.reasoning.text += delta;
    out.push(this.emit({ type: 'response.reasoning_summary_text.delta', item_id: id, output_index: this.state.reasoning.outputIndex, summary_index: 0, delta }));
    return out;
  }

  private closeReasoning(): OutEvent[] {
    const reasoning = this.state.reasoning;
    if (!reasoning || reasoning.isDone) return [];
    reasoning.isDone = true;
    const where = { item_id: this.ids.reasoning, output_index: reasoning.outputIndex, summary_index: 0 };
    const item = reasoningItem(this.ids.reasoning, reasoning.text, 'completed');
    this.state.output.push(item);
    return [
      this.emit({ type: 'response.reasoning_summary_text.done', ...where, text: reasoning.text }),
      this.emit({ type: 'response.reasoning_summary_part.done', ...where, part: { type: 'summary_text', text: reasoning.text } }),
      this.emit({ type: 'response.output_item.done', output_index: reasoning.outputIndex, item }),
    ];
  }

  /** Opens the message item (closing the reasoning item first): at the first content, or at the end. */
  private openMessage(): OutEvent[] {
    if (this.state.message) return [];
    const out = this.closeReasoning();
    this.state.message = { outputIndex: this.state.output.length, text: '' };
    const where = { item_id: this.ids.message, output_index: this.state.message.outputIndex, content_index: 0 };
    out.push(this.emit({ type: 'response.output_item.added', output_index: where.output_index, item: messageItem(this.ids.message, undefined, 'in_progress') }));
    out.push(this.emit({ type: 'response.content_part.added', ...where, part: { type: 'output_text', text: '', annotations: [] } }));
    return out;
  }

  private textDelta(delta: string): OutEvent[] {
    const out = this.openMessage();
    const message = this.state.message!;
    message.text += delta;
    out.push(this.emit({ type: 'response.output_text.delta', item_id: this.ids.message, output_index: message.outputIndex, content_index: 0, delta, logprobs: [] }));
    return out;
  }

  /** Chat streams a call as pieces: id and name first, then argument fragments, all under one index. */
  private collectToolCall(piece: { index: number; id?: string; function?: { name?: string; arguments?: string } }): void {
    const call = (this.state.toolCalls[piece.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
    if (piece.id) call.id = piece.id;
    if (piece.function?.name) call.function.name += piece.function.name;
    if (piece.function?.arguments) call.function.arguments += piece.function.arguments;
  }

  /** Closes the open items and ends the response; runs when the upstream sends [DONE]. */
  private finish(): OutEvent[] {
    const calls = functionCallItems(this.state.toolCalls.filter(Boolean));
    const out = [...this.start(), ...this.closeReasoning(), ...(calls.length === 0 ? this.openMessage() : [])];
    const ending = this.state.ending ?? { status: 'completed' };
    const message = this.state.message;
    if (message) {
      const where = { item_id: this.ids.message, output_index: message.outputIndex, content_index: 0 };
      const item = messageItem(this.ids.message, message.text, ending.status);
      this.state.output.push(item);
      out.push(this.emit({ type: 'response.output_text.done', ...where, text: message.text, logprobs: [] }));
      out.push(this.emit({ type: 'response.content_part.done', ...where, part: item.content[0]! }));
      out.push(this.emit({ type: 'response.output_item.done', output_index: message.outputIndex, item }));
    }
    for (const call of calls) {
      const outputIndex = this.state.output.length;
      const where = { item_id: call.id, output_index: outputIndex };
      out.push(this.emit({ type: 'response.output_item.added', output_index: outputIndex, item: { ...call, arguments: '', status: 'in_progress' } }));
      out.push(this.emit({ type: 'response.function_call_arguments.delta', ...where, delta: call.arguments }));
      out.push(this.emit({ type: 'response.function_call_arguments.done', ...where, name: call.name, arguments: call.arguments }));
      out.push(this.emit({ type: 'response.output_item.done', output_index: outputIndex, item: call }));
      this.state.output.push(call);
    }
    const response = responseObject(this.ids, this.ctx, { ending, output: [...this.state.output], usage: toResponsesUsage(this.state.rawUsage) });
    out.push(this.emit({ type: ending.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response }));
    return out;
  }
}
