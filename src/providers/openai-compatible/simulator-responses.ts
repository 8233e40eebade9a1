import { formatSse } from '../../sse/write.js';
import type { SimErrorBody, SimHandler, SimRequest, SimResponse } from '../../simulator/server.js';
import { countTokens, simulateText, stableId, tokenPieces, type SimulatedText } from '../../simulator/text.js';
import { answerPromptAfterTools, quotedRequest } from '../../simulator/tool-calls.js';
import { encryptReasoning, pickResponsesCalls, unverifiableReasoning, type SimResponsesCall } from './simulator-responses-agent.js';
import { structuredContent, type SimOutputFormat } from '../../simulator/structured-output.js';
import { tokenLogprobs, type SimTokenLogprob } from '../../simulator/logprobs.js';

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
  type?: unknown;
  id?: unknown;
  role?: unknown;
  content?: unknown;
  output?: unknown;
  arguments?: unknown;
  encrypted_content?: unknown;
}

/**
 * A fake Responses API (openai.md §2, as Ark serves it at /api/v3/responses): deterministic text
 * with real token counts, reasoning items with summary events for thinking models (with
 * `encrypted_content` when included, checked when sent back), tool calls as an agent's model
 * makes them (openai-responses-agent.ts), status `incomplete` when max_output_tokens cuts the
 * text, and the documented stream event sequence.
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
  if (body.previous_response_id != null) {
    res.json(400, options.errorBody(400, 'previous_response_id is not supported by the simulator: it stores no responses. Send the whole conversation in input.'));
    return;
  }
  const items: SimInputMessage[] = typeof input === 'string' ? [{ role: 'user', content: input }] : (input as Array<SimInputMessage | null>).filter((m): m is SimInputMessage => !!m && typeof m === 'object');
  const forged = unverifiableReasoning(items);
  if (forged !== undefined) {
    res.json(400, options.errorBody(400, `The encrypted content for item ${forged} could not be verified.`));
    return;
  }
  const messages: Array<{ role: string; text: string }> = items
    .filter((m) => m.type === undefined || m.type === 'message')
    .map((m) => ({ role: String(m.role), text: contentText(m.content) }));
  if (typeof body.instructions === 'string') messages.unshift({ role: 'system', text: body.instructions });
  const thinkingOff = options.hasThinkingSwitch && (body.thinking as { type?: string } | undefined)?.type === 'disabled';
  const withReasoning = options.isReasoningModel(body.model) && !thinkingOff;
  const question = [...messages].reverse().find((m) => m.role === 'user')?.text ?? messages[messages.length - 1]?.text ?? '';
  const toolResults = trailingToolResults(items);
  const prompt = toolResults.length > 0 ? answerPromptAfterTools(quotedRequest(question), toolResults) : quotedRequest(question);
  let text = simulateText({ model: body.model, prompt, maxTokens, withReasoning });
  const json = structuredContent(outputFormatOf(body.text), prompt, text.content);
  if (json !== undefined) {
    const contentPieces = tokenPieces(json);
    text = { ...text, content: json, contentPieces, contentTokens: contentPieces.length, finishReason: 'stop' };
  }
  const calls = pickResponsesCalls(body, question, toolResults.length > 0);
  const inputTokens = items.reduce((sum, m) => sum + 3 + countTokens(itemText(m)), 3);
  // Logprobs come when asked for with include (openai.md §2 `include`, `top_logprobs`).
  const wantsLogprobs = Array.isArray(body.include) && body.include.includes('message.output_text.logprobs');
  const logprobs = wantsLogprobs ? tokenLogprobs(text.contentPieces, typeof body.top_logprobs === 'number' ? body.top_logprobs : 0) : [];
  const response = buildResponse(options, body, text, inputTokens, withReasoning, calls, logprobs);
  // A repeated long prefix (instructions, then the input items) comes back cached (issue 21).
  const promptText = `${typeof body.instructions === 'string' ? body.instructions : ''}\n${JSON.stringify(input)}`;
  (response.usage as { input_tokens_details: { cached_tokens: number } }).input_tokens_details.cached_tokens = req.promptCache.cachedPrefixTokens(promptText, inputTokens);
  if (body.stream === true) await res.sse(streamFrames(response, text, logprobs));
  else res.json(200, response);
}

const isToolOutput = (item: SimInputMessage): boolean => item.type === 'function_call_output' || item.type === 'custom_tool_call_output';

/** The outputs of the tool calls that end the input (the agent sent results back). */
function trailingToolResults(items: readonly SimInputMessage[]): string[] {
  const results: string[] = [];
  for (let i = items.length - 1; i >= 0 && isToolOutput(items[i]!); i--) results.unshift(contentText(items[i]!.output));
  return results;
}

/** The text an input item adds to the prompt, for token counting. */
function itemText(item: SimInputMessage): string {
  if (item.output !== undefined) return contentText(item.output);
  if (typeof item.arguments === 'string') return item.arguments;
  return contentText(item.content);
}

/** `text.format` (openai.md §2): json_schema carries its schema inline, json_object asks for any object. */
function outputFormatOf(text: unknown): SimOutputFormat {
  const format = (text as { format?: { type?: unknown; schema?: unknown } } | undefined)?.format;
  if (format?.type === 'json_schema') return { kind: 'json_schema', schema: format.schema };
  if (format?.type === 'json_object') return { kind: 'json_object' };
  return undefined;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: unknown; text?: unknown }) => ((part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string' ? part.text : '')).join(' ');
}

type SimResponseObject = Record<string, unknown> & { id: string; output: Array<Record<string, unknown>>; status: string };

function buildResponse(
  options: OpenAIResponsesSimOptions, body: Record<string, unknown>, text: SimulatedText, inputTokens: number, withReasoning: boolean, calls: readonly SimResponsesCall[],
  logprobs: readonly SimTokenLogprob[],
): SimResponseObject {
  const id = stableId(options.vendor, JSON.stringify(body));
  const isCut = text.finishReason === 'length';
  const output: Array<Record<string, unknown>> = [];
  if (withReasoning) {
    const wantsEncrypted = Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content');
    const encrypted = wantsEncrypted ? { encrypted_content: encryptReasoning(`rs_${id}`, text.reasoningTokens) } : {};
    output.push({ id: `rs_${id}`, type: 'reasoning', summary: [{ type: 'summary_text', text: text.reasoning }], ...encrypted, status: 'completed' });
  }
  output.push(...calls);
  if (calls.length === 0) {
    output.push({
      id: `msg_${id}`,
      type: 'message',
      role: 'assistant',
      status: isCut ? 'incomplete' : 'completed',
      content: [{ type: 'output_text', text: text.content, annotations: [], logprobs }],
    });
  }
  const callTokens = calls.reduce((sum, call) => sum + countTokens(call.type === 'function_call' ? call.arguments : call.input), 0);
  const outputTokens = (calls.length > 0 ? callTokens : text.contentTokens) + text.reasoningTokens;
  // Ark's Response type has no completed_at (volcengine-python-sdk types/responses/response.py).
  return {
    id: `resp_${id}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: body.model,
    status: isCut && calls.length === 0 ? 'incomplete' : 'completed',
    error: null,
    incomplete_details: isCut && calls.length === 0 ? { reason: 'max_output_tokens' } : null,
    max_output_tokens: body.max_output_tokens ?? null,
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    thinking: { type: withReasoning ? 'enabled' : 'disabled' },
    service_tier: 'default',
    tools: Array.isArray(body.tools) ? body.tools : [],
    tool_choice: body.tool_choice ?? 'auto',
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    text: body.text ?? { format: { type: 'text' } },
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
function streamFrames(response: SimResponseObject, text: SimulatedText, logprobs: readonly SimTokenLogprob[]): string[] {
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
    } else if (item.type === 'function_call') {
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, arguments: '', status: 'in_progress' } });
      emit('response.function_call_arguments.delta', { item_id: itemId, output_index: outputIndex, delta: item.arguments });
      emit('response.function_call_arguments.done', { item_id: itemId, output_index: outputIndex, name: item.name, arguments: item.arguments });
    } else if (item.type === 'custom_tool_call') {
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, input: '', status: 'in_progress' } });
      emit('response.custom_tool_call_input.delta', { item_id: itemId, output_index: outputIndex, delta: item.input });
      emit('response.custom_tool_call_input.done', { item_id: itemId, output_index: outputIndex, input: item.input });
    } else {
      const where = { item_id: itemId, output_index: outputIndex, content_index: 0 };
      emit('response.output_item.added', { output_index: outputIndex, item: { ...item, content: [], status: 'in_progress' } });
      emit('response.content_part.added', { ...where, part: { type: 'output_text', text: '', annotations: [] } });
      text.contentPieces.forEach((delta, at) => emit('response.output_text.delta', { ...where, delta, logprobs: logprobs[at] ? [logprobs[at]] : [] }));
      emit('response.output_text.done', { ...where, text: text.content, logprobs });
      emit('response.content_part.done', { ...where, part: { type: 'output_text', text: text.content, annotations: [], logprobs } });
    }
    emit('response.output_item.done', { output_index: outputIndex, item });
  });
  emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
  return frames;
}
