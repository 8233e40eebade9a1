import { formatSse } from '../../sse/write.js';
import type { PromptCache } from '../../simulator/prompt-cache.js';
import { anthropicCacheUsage } from './simulator-cache.js';
import type {
  AnthropicContentBlock,
  AnthropicContentBlockParam,
  AnthropicErrorBody,
  AnthropicErrorType,
  AnthropicMessage,
  AnthropicMessageParam,
  AnthropicMessagesEvent,
  AnthropicMessagesRequest,
  AnthropicStopReason,
  AnthropicTool,
  AnthropicToolUseBlock,
} from './wire.js';
import type { SimResponse, SimulatorSpec } from '../../simulator/server.js';
import { countTokens, simulateText, stableId } from '../../simulator/text.js';
import { thinkingSignature, validateAnthropicRequest } from './simulator-validate.js';
import { decideToolCalls, type SimToolChoice } from '../../simulator/tool-calls.js';
import { structuredContent } from '../../simulator/structured-output.js';
import { tokenPieces } from '../../simulator/text.js';
import { anthropicBatchesSimHandler } from './simulator-batches.js';

const ERROR_TYPE_BY_STATUS: Record<number, AnthropicErrorType> = {
  400: 'invalid_request_error', 401: 'authentication_error', 402: 'billing_error', 403: 'permission_error', 404: 'not_found_error',
  413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 504: 'timeout_error', 529: 'overloaded_error',
};

/** Anthropic's error body (anthropic.md "Errors"); unlisted 4xx read as invalid_request_error. */
export const anthropicErrorBody = (status: number, message: string): AnthropicErrorBody => ({
  type: 'error',
  error: { type: ERROR_TYPE_BY_STATUS[status] ?? (status < 500 ? 'invalid_request_error' : 'api_error'), message },
  request_id: `req_sim${stableId(String(status), message).slice(0, 16)}`,
});

/** A fake Anthropic Messages server: header checks, request validation, deterministic text, SSE. */
export const anthropicSimulator: SimulatorSpec = {
  vendor: 'anthropic',
  errorBody: anthropicErrorBody,
  async handle(req, res) {
    if (req.path.startsWith('/v1/messages/batches')) return batchRoutes(req, res);
    const isCount = req.path === '/v1/messages/count_tokens';
    if (req.method !== 'POST' || (req.path !== '/v1/messages' && !isCount)) return false;
    if (!req.headers['x-api-key']) {
      res.json(401, anthropicErrorBody(401, 'x-api-key header is required'));
      return true;
    }
    if (!req.headers['anthropic-version']) {
      res.json(400, anthropicErrorBody(400, 'anthropic-version: header is required'));
      return true;
    }
    const problem = validateAnthropicRequest(req.body, { betas: betasOf(req.headers['anthropic-beta']), isCount });
    if (problem) {
      res.json(problem.status, anthropicErrorBody(problem.status, problem.message));
      return true;
    }
    const body = req.body as AnthropicMessagesRequest;
    if (isCount) res.json(200, { input_tokens: inputTokensOf(body) });
    else await createMessage(body, res, req.promptCache);
    return true;
  },
};

/** Message Batches (issue 46): each request is answered by this simulator's own /v1/messages. */
const batchRoutes = anthropicBatchesSimHandler(anthropicErrorBody, (req, res) => anthropicSimulator.handle(req, res));

const betasOf = (header: string | undefined): ReadonlySet<string> => new Set((header ?? '').split(',').map((flag) => flag.trim()).filter(Boolean));

/** What the prompt costs: system text, every message's text and the tools' definitions. */
function inputTokensOf(body: AnthropicMessagesRequest): number {
  const tools = body.tools && body.tools.length > 0 ? countTokens(JSON.stringify(body.tools)) : 0;
  return countTokens(systemText(body.system)) + tools + body.messages.reduce((sum, m) => sum + 4 + countTokens(messageText(m)), 3);
}

interface Reply {
  message: AnthropicMessage;
  /** Text and thinking split into the pieces a stream sends. */
  pieces: Map<number, readonly string[]>;
}

function buildReply(body: AnthropicMessagesRequest, promptCache?: PromptCache): Reply {
  const prompt = lastUserText(body.messages);
  const stops = body.stop_sequences ?? [];
  const thinkingType = (body.thinking as { type?: string } | undefined)?.type;
  const withReasoning = thinkingType === 'enabled' || thinkingType === 'adaptive';
  let text = simulateText({ model: body.model, prompt, maxTokens: body.max_tokens, stop: stops, withReasoning });
  const format = body.output_config?.format;
  const json = format?.type === 'json_schema' ? structuredContent({ kind: 'json_schema', schema: format.schema }, prompt, text.content) : undefined;
  if (json !== undefined) {
    const contentPieces = tokenPieces(json);
    text = { ...text, content: json, contentPieces, contentTokens: contentPieces.length, finishReason: 'stop' };
  }
  const toolUses = pickToolUses(body, prompt);
  const toolUse = toolUses[0];
  const content: AnthropicContentBlock[] = [];
  const pieces = new Map<number, readonly string[]>();
  if (withReasoning) {
    pieces.set(content.length, text.reasoningPieces);
    content.push({ type: 'thinking', thinking: text.reasoning, signature: thinkingSignature(text.reasoning) });
  }
  if (toolUse) content.push(...toolUses);
  else {
    pieces.set(content.length, text.contentPieces);
    content.push({ type: 'text', text: text.content });
  }
  const matchedStop = toolUse || text.finishReason === 'length' ? undefined : firstStop(body, prompt, stops);
  const stopReason: AnthropicStopReason = toolUse ? 'tool_use' : text.finishReason === 'length' ? 'max_tokens' : matchedStop ? 'stop_sequence' : 'end_turn';
  const inputTokens = inputTokensOf(body);
  const outputTokens = text.reasoningTokens + (toolUse ? countTokens(JSON.stringify(toolUses.map((t) => t.input))) : text.contentTokens);
  // cache_control marks a prefix: written the first time, read after (issue 21). input_tokens exclude both.
  const cache = promptCache && anthropicCacheUsage(body as unknown as Record<string, unknown>, promptCache);
  const cachedInput = cache ? cache.cache_creation_input_tokens + cache.cache_read_input_tokens : 0;
  const message: AnthropicMessage = {
    id: `msg_sim${stableId('anthropic', JSON.stringify(body)).slice(0, 20)}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? (matchedStop ?? null) : null,
    usage: {
      input_tokens: Math.max(0, inputTokens - cachedInput),
      output_tokens: outputTokens,
      cache_creation_input_tokens: cache?.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: cache?.cache_read_input_tokens ?? 0,
      ...(cache ? { cache_creation: cache.cache_creation } : {}),
      service_tier: 'standard',
    },
  };
  return { message, pieces };
}

async function createMessage(body: AnthropicMessagesRequest, res: SimResponse, promptCache?: PromptCache): Promise<void> {
  const { message, events } = simulateAnthropicMessage(body, promptCache);
  const requestId = `req_sim${stableId(message.id).slice(0, 16)}`;
  if (!body.stream) {
    res.json(200, message, { 'request-id': requestId });
    return;
  }
  await res.sse(events.map((event) => formatSse({ event: event.type, data: event })));
}

/**
 * The simulated Message for a request and the stream events that deliver it (text and thinking in
 * pieces, tool inputs as one JSON delta); clouds that host Claude (Bedrock's InvokeModel) frame
 * the same events their own way.
 */
export function simulateAnthropicMessage(body: AnthropicMessagesRequest, promptCache?: PromptCache): { message: AnthropicMessage; events: AnthropicMessagesEvent[] } {
  const { message, pieces } = buildReply(body, promptCache);
  const events: AnthropicMessagesEvent[] = [
    { type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...message.usage, output_tokens: 1 } } },
  ];
  message.content.forEach((block, index) => {
    events.push({ type: 'content_block_start', index, content_block: emptyOf(block) });
    if (index === 0) events.push({ type: 'ping' });
    for (const piece of pieces.get(index) ?? []) {
      events.push({ type: 'content_block_delta', index, delta: block.type === 'thinking' ? { type: 'thinking_delta', thinking: piece } : { type: 'text_delta', text: piece } });
    }
    if (block.type === 'thinking') events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    if (block.type === 'tool_use') events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
    events.push({ type: 'content_block_stop', index });
  });
  events.push(
    { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence }, usage: { output_tokens: message.usage.output_tokens } },
    { type: 'message_stop' },
  );
  return { message, events };
}

/** The block as content_block_start announces it: empty text, thinking or input. */
function emptyOf(block: AnthropicContentBlock): AnthropicContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'tool_use':
      return { ...block, input: {} };
    default:
      return block;
  }
}

/** Which stop sequence cut the reply: the one occurring first in the uncut text. */
function firstStop(body: AnthropicMessagesRequest, prompt: string, stops: readonly string[]): string | undefined {
  const full = simulateText({ model: body.model, prompt }).content;
  let best: { at: number; stop: string } | undefined;
  for (const stop of stops) {
    const at = stop ? full.indexOf(stop) : -1;
    if (at >= 0 && (!best || at < best.at)) best = { at, stop };
  }
  return best?.stop;
}

/**
 * Tool calls per tool_choice (`auto`, `any`, `tool`, `none`; `disable_parallel_tool_use`), inputs
 * sampled from each tool's input_schema (tool-calls.ts); in `auto` mode a turn of tool results
 * gets the final text answer.
 */
function pickToolUses(body: AnthropicMessagesRequest, prompt: string): AnthropicToolUseBlock[] {
  // Server tools (`web_search_20250305`…) run at Anthropic, never as a client's tool_use.
  const tools: AnthropicTool[] = (body.tools ?? []).filter((tool) => tool.type === undefined || tool.type === 'custom');
  const choice = body.tool_choice as { type?: string; name?: string; disable_parallel_tool_use?: boolean } | undefined;
  const mode: SimToolChoice =
    choice?.type === 'none' ? { mode: 'none' } : choice?.type === 'any' ? { mode: 'required' } : choice?.type === 'tool' ? { mode: 'named', names: [choice.name ?? ''] } : { mode: 'auto' };
  const last = body.messages[body.messages.length - 1];
  const hasToolResults = last?.role === 'user' && Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result');
  const calls = decideToolCalls({
    tools: tools.map((t) => ({ name: t.name, description: (t as { description?: string }).description, parameters: (t as { input_schema?: unknown }).input_schema })),
    choice: mode,
    isParallel: choice?.disable_parallel_tool_use === false,
    prompt,
    hasToolResults,
  });
  return calls.map((call) => ({ type: 'tool_use', id: `toolu_sim${call.id.slice(0, 16)}`, name: call.name, input: call.arguments as Record<string, unknown> }));
}

function messageText(message: AnthropicMessageParam): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map(blockText).join(' ');
}

function blockText(block: AnthropicContentBlockParam): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_result':
      return typeof block.content === 'string' ? block.content : (block.content ?? []).map((part) => (part.type === 'text' ? part.text : '')).join(' ');
    case 'tool_use':
      return JSON.stringify(block.input);
    default:
      return '';
  }
}

/** `system` as a string or as text blocks (what Claude Code sends, with cache_control on some). */
function systemText(system: AnthropicMessagesRequest['system']): string {
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
}

function lastUserText(messages: readonly AnthropicMessageParam[]): string {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return messageText(messages[i]!);
  return messageText(messages[messages.length - 1]!);
}
