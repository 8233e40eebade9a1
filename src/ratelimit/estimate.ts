import { approximateTokens } from '../tokens/approximate.js';

export { approximateTokens };

/** Reserved for the completion when the request names no maximum. */
export const DEFAULT_COMPLETION_ESTIMATE = 1024;

/** Fields whose strings are prompt text in any family's request (chat, messages, responses, generate-content, images, video). */
const TEXT_FIELDS = new Set(['content', 'text', 'input', 'instructions', 'prompt', 'system']);

/**
 * Tokens reserved at admission: the prompt's approximate tokens plus the requested maximum
 * output (`max_tokens`, `max_completion_tokens`, `max_output_tokens` or
 * `generationConfig.maxOutputTokens`), or DEFAULT_COMPLETION_ESTIMATE when none is given. Only
 * text fields are walked, so inline images and URLs are not counted as tokens. The reservation
 * is settled to the real usage when the request ends, so an estimate is enough here; a real
 * tokenizer would cost tens of microseconds and ~70 MB of tables on every limited request.
 */
export function estimateTokens(body: unknown): number {
  return promptTokens(body, approximateTokens) + (requestedMaximum(body) ?? DEFAULT_COMPLETION_ESTIMATE);
}

/**
 * The prompt's tokens, each text field counted with `count`. Strings count only under a text
 * field (or in an array under one): roles, ids and URLs do not.
 */
export function promptTokens(value: unknown, count: (text: string) => number, isText = false): number {
  if (typeof value === 'string') return isText ? count(value) : 0;
  if (Array.isArray(value)) {
    let sum = 0;
    for (const item of value) sum += promptTokens(item, count, isText);
    return sum;
  }
  if (!value || typeof value !== 'object') return 0;
  let sum = 0;
  for (const field in value) sum += promptTokens((value as Record<string, unknown>)[field], count, TEXT_FIELDS.has(field));
  return sum;
}

export function requestedMaximum(body: unknown): number | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const field of ['max_tokens', 'max_completion_tokens', 'max_output_tokens']) {
    if (typeof record[field] === 'number') return record[field];
  }
  const config = record.generationConfig as Record<string, unknown> | undefined;
  return typeof config?.maxOutputTokens === 'number' ? config.maxOutputTokens : undefined;
}

/** Around each message a chat template adds its role and separators (OpenAI counts 3 plus the role's token). */
const TEMPLATE_TOKENS_PER_MESSAGE = 4;
/** The assistant turn the template opens for the answer. */
const TEMPLATE_REPLY_TOKENS = 3;
/** Request fields the vendor renders into the prompt as JSON: tool and output-schema definitions. */
const RENDERED_FIELDS = ['tools', 'functions', 'response_format', 'text', 'toolConfig', 'generationConfig'] as const;

/**
 * What a chat template adds to the prompt's text (issue 23 item 11: leaving it out let a budget
 * be overrun one request at a time): a few tokens per message (chat `messages`, responses `input`
 * items, Gemini `contents`), the reply's opening, and the tool and schema definitions the
 * vendor renders into the prompt, approximated from their JSON. For budgets only.
 */
export function templateTokens(body: unknown): number {
  if (!body || typeof body !== 'object') return 0;
  const record = body as Record<string, unknown>;
  let messages = 0;
  for (const field of ['messages', 'input', 'contents'] as const) {
    const list = record[field];
    if (Array.isArray(list)) messages += list.length;
    else if (list !== undefined) messages += 1;
  }
  if (record.system !== undefined || record.instructions !== undefined || record.systemInstruction !== undefined) messages += 1;
  let rendered = 0;
  for (const field of RENDERED_FIELDS) {
    const value = record[field];
    if (value !== undefined && value !== null && typeof value === 'object') rendered += approximateTokens(JSON.stringify(value));
  }
  return messages * TEMPLATE_TOKENS_PER_MESSAGE + TEMPLATE_REPLY_TOKENS + rendered;
}

