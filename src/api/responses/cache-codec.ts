import type { ResponseCacheCodec } from '../../contracts/response-cache.js';
import { splitAtLastUserTurn, typedTextPart } from '../../cache/last-user-turn.js';
import type { OutEvent, SseEvent } from '../../contracts/sse-event.js';
import type { OpenAIOutputItem, OpenAIResponse, OpenAIResponsesEvent } from '../../protocols/openai-responses/types.js';

/**
 * Responses answers in the response cache (issue 32): a stream is stored only when it ends in
 * `response.completed`, whose response is the answer (its items from `output_item.done` where the
 * final event leaves them out); a response replays as created, in_progress, each item's events
 * (reasoning summaries, output text, function-call arguments) and completed, numbered in order.
 */
export const responsesCacheCodec: Required<ResponseCacheCodec> = {
  fromStream: responseOfStream,
  toStream: responseEventsOf,
  hasClientToolCalls: (body) => (body as OpenAIResponse).output?.some((item) => item.type === 'function_call') ?? false,
  splitLastUserTurn: (body) => {
    const input = (body as { input?: unknown } | null)?.input;
    if (typeof input === 'string') return input.trim() ? { text: input, context: { ...(body as object), input: null } } : undefined;
    return splitAtLastUserTurn(body, 'input', (item) => item.role === 'user' && (item.type === undefined || item.type === 'message'), 'content', typedTextPart('input_text'));
  },
};

function responseOfStream(events: readonly SseEvent[]): OpenAIResponse | undefined {
  const items: OpenAIOutputItem[] = [];
  for (const { data } of events) {
    const event = JSON.parse(data) as OpenAIResponsesEvent;
    if (event.type === 'response.output_item.done') items[event.output_index] = event.item;
    else if (event.type === 'response.completed') {
      const response = event.response;
      return response.output.length > 0 || items.length === 0 ? response : { ...response, output: items.filter(Boolean) };
    } else if (event.type === 'response.failed' || event.type === 'response.incomplete' || event.type === 'error') return undefined;
  }
  return undefined;
}

function responseEventsOf(body: unknown): OutEvent[] {
  const response = body as OpenAIResponse;
  const out: OutEvent[] = [];
  const emit = (data: Record<string, unknown> & { type: string }) => void out.push({ event: data.type, data: { ...data, sequence_number: out.length } });
  const opening: OpenAIResponse = { ...response, status: 'in_progress', output: [], usage: null, completed_at: null };
  emit({ type: 'response.created', response: opening });
  emit({ type: 'response.in_progress', response: opening });
  response.output.forEach((item, output_index) => {
    emit({ type: 'response.output_item.added', output_index, item: openingOf(item) });
    for (const event of itemEventsOf(item, output_index)) emit(event);
    emit({ type: 'response.output_item.done', output_index, item });
  });
  emit({ type: 'response.completed', response });
  return out;
}

function openingOf(item: OpenAIOutputItem): OpenAIOutputItem {
  switch (item.type) {
    case 'message':
      return { ...item, status: 'in_progress', content: [] };
    case 'reasoning':
      return { ...item, summary: [] };
    case 'function_call':
      return { ...item, status: 'in_progress', arguments: '' };
    default:
      return item;
  }
}

function itemEventsOf(item: OpenAIOutputItem, output_index: number): Array<Record<string, unknown> & { type: string }> {
  const item_id = item.id;
  switch (item.type) {
    case 'message':
      return item.content.flatMap((part, content_index) => [
        { type: 'response.content_part.added', item_id, output_index, content_index, part: { ...part, text: '' } },
        { type: 'response.output_text.delta', item_id, output_index, content_index, delta: part.text, logprobs: [] },
        { type: 'response.output_text.done', item_id, output_index, content_index, text: part.text, logprobs: [] },
        { type: 'response.content_part.done', item_id, output_index, content_index, part },
      ]);
    case 'reasoning':
      return item.summary.flatMap((part, summary_index) => [
        { type: 'response.reasoning_summary_part.added', item_id, output_index, summary_index, part: { ...part, text: '' } },
        { type: 'response.reasoning_summary_text.delta', item_id, output_index, summary_index, delta: part.text },
        { type: 'response.reasoning_summary_text.done', item_id, output_index, summary_index, text: part.text },
        { type: 'response.reasoning_summary_part.done', item_id, output_index, summary_index, part },
      ]);
    case 'function_call':
      return [
        { type: 'response.function_call_arguments.delta', item_id, output_index, delta: item.arguments },
        { type: 'response.function_call_arguments.done', item_id, output_index, name: item.name, arguments: item.arguments },
      ];
    default:
      return [];
  }
}
