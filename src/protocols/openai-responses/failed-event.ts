import type { GatewayError } from '../../errors.js';
import type { OutEvent } from '../../contracts/sse-event.js';
import type { OpenAIOutputItem, OpenAIResponse } from './types.js';

/** What a failing Responses stream knows about its response when it has to end it. */
export interface ResponseSnapshot {
  id: string;
  created_at: number;
  model: string;
  /** Output items already finished (sent with `response.output_item.done`). */
  output: OpenAIOutputItem[];
}

/**
 * The terminal event of a Responses stream that fails after its first byte: `response.failed`
 * carrying the response with `status: "failed"` and `error{code,message}` (openai.md §2,
 * "Terminal alternatives"). We prefer it to the bare `error` event because it closes the
 * response lifecycle the client saw open (same id) and uses the spec's `failed` status;
 * `error.code` is the gateway's public code, as in the general error envelope.
 */
export function responseFailedEvent(snapshot: ResponseSnapshot, error: GatewayError, sequenceNumber: number): OutEvent {
  const response: OpenAIResponse = {
    id: snapshot.id,
    object: 'response',
    created_at: snapshot.created_at,
    model: snapshot.model,
    status: 'failed',
    error: { code: error.kind.publicCode, message: error.message },
    incomplete_details: null,
    output: snapshot.output,
    usage: null,
  };
  return { event: 'response.failed', data: { type: 'response.failed', sequence_number: sequenceNumber, response } };
}
