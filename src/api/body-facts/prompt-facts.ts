import type { ConversationHint, RequestFacts } from '../../contracts/request-facts.js';
import { approximateTokens } from '../../tokens/approximate.js';

/** Where a family's body keeps its prompt: what the families' facts.ts have in common to read. */
export interface PromptShape {
  /** The field holding the turns (chat `messages`, responses `input`, Gemini `contents`). */
  turns?: string;
  /** Fields holding the system text, read before the turns. */
  system: readonly string[];
  /** Request fields the vendor renders into the prompt as JSON: tool and output-schema definitions. */
  rendered: readonly string[];
}

/** Fields whose strings are prompt text in any family's request (chat, messages, responses, generate-content, images, video). */
const TEXT_FIELDS = new Set(['content', 'text', 'input', 'instructions', 'prompt', 'system']);

/** Around each message a chat template adds its role and separators (OpenAI counts 3 plus the role's token). */
const TEMPLATE_TOKENS_PER_MESSAGE = 4;
/** The assistant turn the template opens for the answer. */
const TEMPLATE_REPLY_TOKENS = 3;

/**
 * The prompt's tokens, each text field counted with `count`. Strings count only under a text
 * field (or in an array under one): roles, ids and URLs do not, so inline images and URLs are not
 * counted as tokens. Each string is counted on its own, as the reservation always has been.
 */
export function countPromptText(value: unknown, count: (text: string) => number, isText = false): number {
  if (typeof value === 'string') return isText ? count(value) : 0;
  if (Array.isArray(value)) {
    let sum = 0;
    for (const item of value) sum += countPromptText(item, count, isText);
    return sum;
  }
  if (!value || typeof value !== 'object') return 0;
  let sum = 0;
  for (const field in value) sum += countPromptText((value as Record<string, unknown>)[field], count, TEXT_FIELDS.has(field));
  return sum;
}

/**
 * What a chat template adds to the prompt's text (issue 23 item 11: leaving it out let a budget
 * be overrun one request at a time): a few tokens per turn, one turn for the system text, the
 * reply's opening, and the tool and schema definitions the vendor renders into the prompt,
 * approximated from their JSON. For budgets only.
 */
export function templateTokensOf(body: Readonly<Record<string, unknown>>, shape: PromptShape): number {
  const list = shape.turns === undefined ? undefined : body[shape.turns];
  let messages = Array.isArray(list) ? list.length : list !== undefined ? 1 : 0;
  if (shape.system.some((field) => body[field] !== undefined)) messages += 1;
  let rendered = 0;
  for (const field of shape.rendered) {
    const value = body[field];
    if (value !== undefined && value !== null && typeof value === 'object') rendered += approximateTokens(JSON.stringify(value));
  }
  return messages * TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_REPLY_TOKENS + rendered;
}

/** The prompt's facts of a body of the given shape, each made only when asked for. */
export function promptFactsOf(body: Readonly<Record<string, unknown>>, shape: PromptShape): Pick<RequestFacts, 'promptTokens' | 'templateTokens'> {
  return {
    promptTokens: (count) => countPromptText(body, count),
    templateTokens: () => templateTokensOf(body, shape),
  };
}

/**
 * The conversation hint of a body: the names its client gives the conversation, and the start of
 * its prompt (system text, then the first user turn, each with its own budget): the prefix a
 * prompt cache would hold, told apart by the question even when every request shares a long
 * system prompt. `history` says the body follows a stored answer (Responses' previous_response_id).
 */
export function conversationHintOf(
  body: Readonly<Record<string, unknown>>,
  shape: PromptShape,
  names: { cacheKey?: unknown; userId?: unknown; history?: boolean },
): ConversationHint {
  const turnsOf = () => (shape.turns === undefined ? undefined : body[shape.turns]);
  return {
    cacheKey: textOrUndefined(names.cacheKey),
    userId: textOrUndefined(names.userId),
    promptStart: (chars) => {
      const start: string[] = [];
      const system = { left: chars };
      for (const field of shape.system) collectText(body[field], start, system);
      const turns = turnsOf();
      if (!Array.isArray(turns)) {
        collectText(turns, start, { left: chars });
        return start;
      }
      // Chat keeps its system text in the turns: those count as system, the first other turn as the question.
      let index = 0;
      while (index < turns.length && isSystemTurn(turns[index])) collectText(turns[index++], start, system);
      collectText(turns[index], start, { left: chars });
      return start;
    },
    hasHistory: () => names.history === true || hasHistoryTurn(turnsOf()),
  };
}

const SYSTEM_ROLES = new Set(['system', 'developer']);
/** Roles of turns a model or a tool wrote: chat, Anthropic, Gemini (`model`, `function`), Responses. */
const HISTORY_ROLES = new Set(['assistant', 'model', 'tool', 'function']);

const isSystemTurn = (turn: unknown): boolean => !!turn && typeof turn === 'object' && SYSTEM_ROLES.has((turn as { role?: unknown }).role as string);

/**
 * An assistant turn or a tool result among the turns: a role a model or tool writes, or a
 * Responses item that is not a message (function_call, function_call_output, reasoning…).
 * Usually the second turn, so the scan is short.
 */
function hasHistoryTurn(turns: unknown): boolean {
  if (!Array.isArray(turns)) return false;
  for (const turn of turns) {
    if (!turn || typeof turn !== 'object') continue;
    const { role, type } = turn as { role?: unknown; type?: unknown };
    if (typeof role === 'string' && HISTORY_ROLES.has(role)) return true;
    if (typeof type === 'string' && type !== 'message') return true;
  }
  return false;
}

/** Strings of a value, depth first, until the budget of characters is spent. */
function collectText(value: unknown, out: string[], budget: { left: number }): void {
  if (budget.left <= 0 || value === null || value === undefined) return;
  if (typeof value === 'string') {
    out.push(value.length > budget.left ? value.slice(0, budget.left) : value);
    budget.left -= value.length;
    return;
  }
  if (typeof value !== 'object') return;
  for (const item of Array.isArray(value) ? value : Object.values(value)) collectText(item, out, budget);
}

export const textOrUndefined = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);
export const numberOrUndefined = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
/** A count the client gave (`n`, `candidateCount`), or `fallback` when it gave none or less than one. */
export const countOr = (value: unknown, fallback: number): number => (typeof value === 'number' && value >= 1 ? value : fallback);
/** Thinking turned off the way chat-shaped and Anthropic bodies say it: `thinking: {type: "disabled"}`. */
export const isThinkingOff = (body: Readonly<Record<string, unknown>>): boolean => (body.thinking as { type?: unknown } | undefined)?.type === 'disabled';
