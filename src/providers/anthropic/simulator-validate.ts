import { stableId } from '../../simulator/text.js';

/**
 * The request checks of the fake Anthropic upstream, worded like the real API's
 * invalid_request_error messages (`<field>: <problem>`). Like the real service, it rejects
 * fields it does not know, so a translator that leaks an OpenAI-only field fails loudly; it
 * takes `context_management` only with its beta flag, and checks that every thinking block sent
 * back carries the signature it was given (a block changed on the way fails, as upstream).
 */
/** The signature this simulator gives a thinking text, and checks when the block comes back. */
export const thinkingSignature = (thinking: string): string => `sig_${stableId(thinking)}`;

export interface SimProblem {
  status: number;
  message: string;
}

const KNOWN_FIELDS = new Set([
  'model', 'max_tokens', 'messages', 'system', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'stream', 'metadata', 'tools',
  'tool_choice', 'thinking', 'service_tier', 'output_config', 'cache_control', 'container', 'inference_geo', 'context_management',
]);

/** The fields `POST /v1/messages/count_tokens` takes (no max_tokens, no sampling). */
const COUNT_FIELDS = new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config', 'context_management', 'cache_control']);

/** The beta flag that `context_management` needs (Claude Code sends both). */
const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';

export interface ValidateOptions {
  /** The request's `anthropic-beta` flags. */
  betas: ReadonlySet<string>;
  /** `count_tokens` rather than a message. */
  isCount: boolean;
}

/** Output-token ceilings of the documented models; other claude-* names get the larger one. */
const MAX_OUTPUT_TOKENS: Record<string, number> = { 'claude-sonnet-4-5-20250929': 64_000, 'claude-opus-4-20250514': 32_000 };

const bad = (message: string): SimProblem => ({ status: 400, message });
const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);
const isInRange = (value: unknown, min: number, max: number): boolean => typeof value === 'number' && value >= min && value <= max;

export function validateAnthropicRequest(body: unknown, options: ValidateOptions = { betas: new Set(), isCount: false }): SimProblem | undefined {
  if (!isObject(body)) return bad('body: Input should be a valid dictionary');
  const known = options.isCount ? COUNT_FIELDS : KNOWN_FIELDS;
  for (const field of Object.keys(body)) if (!known.has(field)) return bad(`${field}: Extra inputs are not permitted`);
  if (body.context_management !== undefined && !options.betas.has(CONTEXT_MANAGEMENT_BETA)) return bad('context_management: Extra inputs are not permitted');
  if (typeof body.model !== 'string') return bad('model: Field required');
  if (!body.model.startsWith('claude-')) return { status: 404, message: `model: ${body.model}` };
  if (options.isCount) return checkSystem(body.system) ?? checkMessages(body.messages) ?? checkCacheMarks(body);
  const maxOutput = MAX_OUTPUT_TOKENS[body.model] ?? 64_000;
  if (body.max_tokens === undefined) return bad('max_tokens: Field required');
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1) return bad('max_tokens: Input should be greater than or equal to 1');
  if ((body.max_tokens as number) > maxOutput) {
    return bad(`max_tokens: ${String(body.max_tokens)} > ${maxOutput}, which is the maximum allowed number of output tokens for ${body.model}`);
  }
  return checkSampling(body) ?? checkSystem(body.system) ?? checkMessages(body.messages) ?? checkCacheMarks(body) ?? checkThinking(body.thinking, body.max_tokens as number);
}

function checkSampling(body: Record<string, unknown>): SimProblem | undefined {
  if (body.temperature !== undefined && !isInRange(body.temperature, 0, 1)) return bad('temperature: range: 0..1');
  if (body.top_p !== undefined && !isInRange(body.top_p, 0, 1)) return bad('top_p: range: 0..1');
  if (body.top_k !== undefined && !(Number.isInteger(body.top_k) && (body.top_k as number) >= 0)) return bad('top_k: Input should be greater than or equal to 0');
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return bad('stream: Input should be a valid boolean');
  const stops = body.stop_sequences;
  if (stops !== undefined && !(Array.isArray(stops) && stops.every((s) => typeof s === 'string'))) return bad('stop_sequences: Input should be a valid list of strings');
  return undefined;
}

function checkSystem(system: unknown): SimProblem | undefined {
  if (system === undefined || typeof system === 'string') return undefined;
  const isTextBlocks = Array.isArray(system) && system.every((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string');
  return isTextBlocks ? undefined : bad('system: Input should be a valid string or a list of text blocks');
}

function checkMessages(messages: unknown): SimProblem | undefined {
  if (messages === undefined) return bad('messages: Field required');
  if (!Array.isArray(messages)) return bad('messages: Input should be a valid list');
  if (messages.length === 0) return bad('messages: at least one message is required');
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return bad(`messages.${i}: Input should be a valid dictionary`);
    if (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'system') return bad(`messages.${i}.role: Input should be 'user', 'assistant' or 'system'`);
    const content = message.content;
    const isBlocks = Array.isArray(content) && content.every((b) => isObject(b) && typeof b.type === 'string');
    if (typeof content !== 'string' && !isBlocks) return bad(`messages.${i}.content: Input should be a valid string or a list of content blocks`);
    if (message.role === 'assistant' && Array.isArray(content)) {
      const problem = checkThinkingBlocks(content as Array<Record<string, unknown>>, i);
      if (problem) return problem;
    }
    if (message.role === 'user' && Array.isArray(content)) {
      const problem = checkToolResults(content as Array<Record<string, unknown>>, i);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** Anthropic takes at most 4 `cache_control` breakpoints a request, and none on an empty text block (anthropic.md "Prompt caching"). */
const MAX_CACHE_MARKS = 4;

function checkCacheMarks(body: Record<string, unknown>): SimProblem | undefined {
  const blocks: unknown[] = [...(Array.isArray(body.tools) ? body.tools : []), ...(Array.isArray(body.system) ? body.system : [])];
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    const content = isObject(message) ? message.content : undefined;
    if (!Array.isArray(content)) continue;
    for (const block of content) {
      blocks.push(block);
      if (isObject(block) && Array.isArray(block.content)) blocks.push(...(block.content as unknown[]));
    }
  }
  let marks = 0;
  for (const block of blocks) {
    if (!isObject(block) || block.cache_control == null) continue;
    if (block.type === 'text' && block.text === '') return bad('cache_control cannot be set for empty text blocks');
    marks++;
  }
  return marks > MAX_CACHE_MARKS ? bad(`A maximum of ${MAX_CACHE_MARKS} blocks with cache_control may be provided. Found ${marks}.`) : undefined;
}

/** What a tool_result's content may hold (anthropic.md "Tool use"): text, image and document blocks. */
const TOOL_RESULT_BLOCKS = new Set(['text', 'image', 'document', 'search_result']);

/** Tool results come first in their user turn, and hold text or content blocks the API knows. */
function checkToolResults(blocks: ReadonlyArray<Record<string, unknown>>, index: number): SimProblem | undefined {
  let sawOther = false;
  for (const [j, block] of blocks.entries()) {
    if (block.type !== 'tool_result') {
      sawOther = true;
      continue;
    }
    if (sawOther) return bad(`messages.${index}.content.${j}: tool_result blocks must come first in a user message, before any other content`);
    const content = block.content;
    if (content === undefined || typeof content === 'string') continue;
    if (!Array.isArray(content)) return bad(`messages.${index}.content.${j}.content: Input should be a valid string or a list of content blocks`);
    for (const [k, inner] of content.entries()) {
      if (!isObject(inner) || !TOOL_RESULT_BLOCKS.has(inner.type as string)) return bad(`messages.${index}.content.${j}.content.${k}: Input tag '${String(isObject(inner) ? inner.type : inner)}' does not match any of the expected tags: 'text', 'image', 'document', 'search_result'`);
      if (inner.type === 'image' && !isObject(inner.source)) return bad(`messages.${index}.content.${j}.content.${k}.source: Field required`);
    }
  }
  return undefined;
}

/** Thinking blocks must come back exactly as given: the same text with the signature made for it. */
function checkThinkingBlocks(blocks: ReadonlyArray<Record<string, unknown>>, index: number): SimProblem | undefined {
  for (const [j, block] of blocks.entries()) {
    if (block.type !== 'thinking') continue;
    if (typeof block.thinking !== 'string' || typeof block.signature !== 'string' || block.signature !== thinkingSignature(block.thinking)) {
      return bad(`messages.${index}.content.${j}: Invalid \`signature\` in \`thinking\` block`);
    }
  }
  return undefined;
}

function checkThinking(thinking: unknown, maxTokens: number): SimProblem | undefined {
  if (thinking === undefined) return undefined;
  if (!isObject(thinking) || !['enabled', 'adaptive', 'disabled'].includes(thinking.type as string)) {
    return bad("thinking: Input tag does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'");
  }
  if (thinking.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens;
  if (!Number.isInteger(budget) || (budget as number) < 1024) return bad('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
  if ((budget as number) >= maxTokens) return bad('`max_tokens` must be greater than `thinking.budget_tokens`');
  return undefined;
}
