import { formatSse } from '../gateway/sse/write.js';
import type { SimErrorBody, SimHandler, SimRequest, SimResponse } from './server.js';
import { countTokens, simulateText, stableId, type SimulatedText } from './text.js';

export interface OpenAIResponsesSimOptions {
  vendor: string;
  /** Path prefix the vendor serves under (`/api/v3` for Ark). */
  basePath: string;
  errorBody: SimErrorBody;
  /** Upstream model names that think before answering (reasoning items). */
  isReasoningModel: (model: string) => boolean;
  /** Whether `thinking: {type: "disabled"}` turns reasoning off (Ark). */
  hasThinkingSwitch: boolean;
}

interface SimInputMessage {
  role?: unknown;
  content?: unknown;
}

/**
 * A fake Responses API (openai.md §2, as Ark serves it at /api/v3/responses): deterministic text
 * with real token counts, reasoning items with summary events for thinking models, status
 * `incomplete` when max_output_tokens cuts the text, and the documented stream event sequence.
 */
export function openAIResponsesSimHandler(options: OpenAIResponsesSimOptions): SimHandler {
  return async (req, res) => {
    if (req.method !== 'POST' || req.path !== `${options.basePath}/responses`) return false;
    await createResponse(options, req, res);
    return true;
  };
}

async function createResponse(options: OpenAIResponsesSimOptions, req: SimRequest, res: SimResponse): Promise<void> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const input = body.input;
  const hasInput = (typeof input === 'string' && input.length > 0) || (Array.isArray(input) && input.length > 0);
  if (typeof body.model !== 'string' || !hasInput) {
    res.json(400, options.errorBody(400, 'model and a non-empty input are required'));
    return;
  }
  const maxTokens = body.max_output_tokens;
  if (maxTokens !== undefined && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1)) {
    res.json(400, options.errorBody(400, 'max_output_tokens must be a positive integer'));
    return;
  }
  const messages: Array<{ role: string; text: string }> =
    typeof input === 'string' ? [{ role: 'user', text: input }] : (input as SimInputMessage[]).map((m) => ({ role: String(m.role), text: contentText(m.content) }));
  if (typeof body.instructions === 'string') messages.unshift({ role: 'system', text: body.instructions });
  const thinkingOff = options.hasThinkingSwitch && (body.thinking as { type?: string } | undefined)?.type === 'disabled';
  const withReasoning = options.isReasoningModel(body.model) && !thinkingOff;
  const prompt = [...messages].reverse().find((m) => m.role === 'user')?.text ?? messages[messages.length - 1]!.text;
  const text = simulateText({ model: body.model, prompt, maxTokens, withReasoning });
  const inputTokens = messages.reduce((sum, m) => sum + 3 + countTokens(m.text), 3);
  const response = buildResponse(options, body, text, inputTokens, withReasoning);
  if (body.stream === true) await res.sse(streamFrames(response, text));
  else res.json(200, response);
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: unknown; text?: unknown }) => (part.type === 'input_text' && typeof part.text === 'string' ? part.text : '')).join(' ');
}

type SimResponseObject = Record<string, unknown> & { id: string; output: Array<Record<string, unknown>>; status: string };

function buildResponse(options: OpenAIResponsesSimOptions, body: Record<string, unknown>, text: SimulatedText, inputTokens: number, withReasoning: boolean): SimResponseObject {
  const id = stableId(options.vendor, JSON.stringify(body));
  const isCut = text.finishReason === 'length';
  const output: Array<Record<string, unknown>> = [];
  if (withReasoning) {
    output.push({ id: `rs_${id}`, type: 'reasoning', summary: [{ type: 'summary_text', text: text.reasoning }], status: 'completed' });
  }
  output.push({
    id: `msg_${id}`,
    type: 'message',
    role: 'assistant',
    status: isCut ? 'incomplete' : 'completed',
    content: [{ type: 'output_text', text: text.content, annotations: [] }],
  });
  const outputTokens = text.contentTokens + text.reasoningTokens;
  // Ark's Response type has no completed_at (volcengine-python-sdk types/responses/response.py).
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: body.model,
    status: isCut ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: isCut ? { reason: 'max_output_tokens' } : null,
    max_output_tokens: body.max_output_tokens ?? null,
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    thinking: { type: withReasoning ? 'enabled' : 'disabled' },
    service_tier: 'default',
    tools: [],
    output,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: text.reasoningTokens },
      total_tokens: inputTokens + outputTokens,
    },
  };
}

/** The documented event order (openai.md §2), each frame with `event:` equal to the payload type. */
function streamFrames(response: SimResponseObject, text: SimulatedText): string[] {
  let sequence = 0;
  const frames: string[] = [];
  const emit = (type: string, payload: Record<string, unknown>) => frames.push(formatSse({ event: type, data: { type, ...payload, sequence_number: sequence++ } }));
  const pending = { ...response, status: 'in_progress', incomplete_details: null, output: [], usage: null };
  emit('response.created', { response: pending });
  emit('response.in_progress', { response: pending });
  response.output.forEach((item, outputIndex) => {
    const itemId = String(item.id);
    if (item.type === 'reasoning') {
      const where = { item_id: itemId, output_index: outputIndex, summary_index: 0 };
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, summary: [], status: 'in_progress' } });
      emit('response.reasoning_summary_part.added', { ...where, part: { type: 'summary_text', text: '' } });
      for (const delta of text.reasoningPieces) emit('response.reasoning_summary_text.delta', { ...where, delta });
      emit('response.reasoning_summary_text.done', { ...where, text: text.reasoning });
      emit('response.reasoning_summary_part.done', { ...where, part: { type: 'summary_text', text: text.reasoning } });
    } else {
      const where = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, content: [], status: 'in_progress' } });
      emit('response.content_part.added', { ...where, part: { type: 'output_text', text: '', annotations: [] } });
      for (const delta of text.contentPieces) emit('response.output_text.delta', { ...where, delta, logprobs: [] });
      emit('response.output_text.done', { ...where, text: text.content, logprobs: [] });
      emit('response.content_part.done', { ...where, part: { type: 'output_text', text: text.content, annotations: [] } });
    }
    emit('response.output_item.done', { output_index: outputIndex, item });
  });
  emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
  return frames;
}
