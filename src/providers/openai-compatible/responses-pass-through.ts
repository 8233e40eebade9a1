import { GatewayError } from '../../errors.js';
import { upstreamMessage, upstreamStatusError } from '../../providers/upstream-errors.js';
import type { OutEvent } from '../../contracts/sse-event.js';
import type { SseEvent } from '../../contracts/sse-event.js';
import { responseFailedEvent, type ResponseSnapshot } from '../../protocols/openai-responses/failed-event.js';
import {
  usageFromResponses,
  type OpenAIOutputItem,
  type OpenAIResponse,
  type OpenAIResponsesRequest,
  type ResponsesStreamTranslator,
  type ResponsesTranslatorPair,
} from '../../protocols/openai-responses/types.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';

/**
 * Responses to an upstream with its own Responses API (OpenAI, and Ark per volcengine-ark.md
 * "Responses API"): the same protocol on both sides, so the body passes through with the model renamed, and the response (and every
 * event's embedded response) comes back with the public model id. Usage, reasoning tokens
 * included, comes from the final Response / `response.completed`.
 */
export const responsesPassThrough: ResponsesTranslatorPair = {
  toUpstream(req: OpenAIResponsesRequest, ctx: TranslateContext): UpstreamCall {
    return { method: 'POST', path: '/responses', body: { ...req, model: ctx.upstreamModel } };
  },

  fromUpstream(res: unknown, ctx: TranslateContext): { body: OpenAIResponse; usage: Usage } {
    if (!isResponse(res)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a body that is not a Response object');
    return { body: toClientResponse(res, ctx), usage: usageFromResponses(res.usage) };
  },

  createStreamTranslator: createResponsesPassThroughTranslator,

  fromUpstreamError(status: number, body: unknown): GatewayError {
    return upstreamStatusError(status, upstreamMessage(body));
  },

  // Many OpenAI-compatible servers (DeepSeek, vLLM and Ollama setups) serve chat only.
  endpointMayBeAbsent: true,
};

function isResponse(value: unknown): value is OpenAIResponse {
  const record = value as Partial<OpenAIResponse> | null;
  return !!record && typeof record === 'object' && typeof record.id === 'string' && Array.isArray(record.output);
}

/**
 * Public model id; `completed_at` (a spec field Ark's Response type lacks) filled for finished
 * responses, from the admission second because translators read no clock; a failed response's
 * error in our words, as for any upstream failure that is not a 400 (docs/decisions.md "Errors").
 */
function toClientResponse(response: OpenAIResponse, ctx: TranslateContext): OpenAIResponse {
  const body: OpenAIResponse = { ...response, model: ctx.model };
  const isFinished = response.status === 'completed' || response.status === 'incomplete';
  if (isFinished && typeof response.completed_at !== 'number') body.completed_at = Math.max(response.created_at ?? 0, ctx.now);
  if (response.error) {
    const failure = upstreamStatusError(502, undefined);
    body.error = { code: failure.kind.publicCode, message: failure.message };
  }
  return body;
}

interface UpstreamEvent {
  type: string;
  sequence_number?: number;
  response?: OpenAIResponse;
  item?: OpenAIOutputItem;
  message?: string;
  [extra: string]: unknown;
}

function parseEvent(data: string): UpstreamEvent {
  let event: unknown;
  try {
    event = JSON.parse(data);
  } catch {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event that is not JSON');
  }
  if (!event || typeof event !== 'object' || typeof (event as UpstreamEvent).type !== 'string') {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event without a type');
  }
  return event as UpstreamEvent;
}

function createResponsesPassThroughTranslator(ctx: TranslateContext): ResponsesStreamTranslator {
  const state = {
    /** Highest sequence number sent; upstream numbers pass through, a missing or stale one gets the next. */
    lastSequence: -1,
    /** The response as the client last saw it, for `response.failed` if the stream breaks. */
    snapshot: { id: `resp_${ctx.requestId.replace(/^req_/, '')}`, created_at: ctx.now, model: ctx.model, output: [] } as ResponseSnapshot,
    /** Usage of the terminal response. */
    usage: undefined as Usage | undefined,
    /** `response.completed` / `response.incomplete` arrived; without it the stream was cut. */
    isFinished: false,
    /** The upstream's response id, from its first event that carries the response. */
    upstreamId: undefined as string | undefined,
  };

  return {
    onEvent(raw: SseEvent): OutEvent[] {
      // The Responses protocol has no [DONE]; tolerate a relay that appends one.
      if (raw.data === '[DONE]' || state.isFinished) return [];
      const event = parseEvent(raw.data);
      if (event.type === 'error') throw upstreamStatusError(502, typeof event.message === 'string' ? event.message : undefined);
      if (event.type === 'response.failed') throw upstreamStatusError(502, event.response?.error?.message);
      const sequence = typeof event.sequence_number === 'number' && event.sequence_number > state.lastSequence ? event.sequence_number : state.lastSequence + 1;
      state.lastSequence = sequence;
      const out: UpstreamEvent = { ...event, sequence_number: sequence };
      if (event.response) {
        out.response = toClientResponse(event.response, ctx);
        state.snapshot = { ...state.snapshot, id: event.response.id, created_at: event.response.created_at };
        state.upstreamId ??= event.response.id;
      }
      if (event.type === 'response.output_item.done' && event.item) state.snapshot.output = [...state.snapshot.output, event.item];
      if ((event.type === 'response.completed' || event.type === 'response.incomplete') && event.response) {
        state.isFinished = true;
        state.usage = usageFromResponses(event.response.usage);
      }
      return [{ event: event.type, data: out }];
    },
    onEnd(): OutEvent[] {
      if (!state.isFinished) throw new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended before the response was complete');
      return [];
    },
    onError: (error) => [responseFailedEvent(state.snapshot, error, state.lastSequence + 1)],
    usage: () => state.usage,
    answerId: () => state.upstreamId,
  };
}
