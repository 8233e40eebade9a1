import type { GatewayError } from '../../errors.js';
import type { OutEvent } from '../../contracts/sse-event.js';

/**
 * How a /v1/responses stream that fails after its first byte ends (openai.md §2, "Terminal
 * alternatives"): never with a fake `response.completed`, never with `[DONE]`.
 *
 * The responses pair type requires `StreamTranslator.onError`, which ends the stream with
 * `response.failed` (same response id, next sequence number, `status: "failed"`,
 * `error{code,message}`; protocols/openai-responses/failed-event.ts). This stateless renderer
 * only satisfies dispatch's contract: should it ever run, it sends the bare `error` event, whose
 * `sequence_number` is -1 because a stateless renderer cannot know the stream's last number.
 */
export const renderResponsesStreamError = (error: GatewayError): OutEvent[] => [
  {
    event: 'error',
    data: { type: 'error', code: error.kind.publicCode, message: error.message, param: error.param ?? null, sequence_number: -1 },
  },
];

/** The text of one Responses event: every `*.delta` event (output text, reasoning) carries it. */
export function responsesEventText(out: OutEvent): string {
  const event = out.data as { type?: unknown; delta?: unknown };
  return typeof event === 'object' && typeof event.type === 'string' && event.type.endsWith('.delta') && typeof event.delta === 'string' ? event.delta : '';
}
