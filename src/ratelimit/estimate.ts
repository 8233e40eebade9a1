import { countTokens } from '../tokens/tokenizer.js';

/** Reserved for the completion when the request names no maximum. */
export const DEFAULT_COMPLETION_ESTIMATE = 1024;

/** Fields whose strings are prompt text in any family's request (chat, messages, responses, generate-content, images, video). */
const TEXT_FIELDS = new Set(['content', 'text', 'input', 'instructions', 'prompt', 'system']);

/**
 * Tokens reserved at admission: the prompt's text counted with the o200k tokenizer plus the
 * requested maximum output (`max_tokens`, `max_completion_tokens`, `max_output_tokens` or
 * `generationConfig.maxOutputTokens`), or DEFAULT_COMPLETION_ESTIMATE when none is given. Only
 * text fields are walked, so inline images and URLs are not counted as tokens. The reservation
 * is settled to the real usage when the request ends.
 */
export function estimateTokens(body: unknown): number {
  return promptTokens(body, false) + (requestedMaximum(body) ?? DEFAULT_COMPLETION_ESTIMATE);
}

/** The prompt's tokens alone (partial usage of a stream that never reported its own). */
export const estimatePromptTokens = (body: unknown): number => promptTokens(body, false);

/** Strings count only under a text field (or in an array under one): roles, ids and URLs do not. */
function promptTokens(value: unknown, isText: boolean): number {
  if (typeof value === 'string') return isText ? countTokens(value) : 0;
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + promptTokens(item, isText), 0);
  if (!value || typeof value !== 'object') return 0;
  let sum = 0;
  for (const [field, child] of Object.entries(value)) sum += promptTokens(child, TEXT_FIELDS.has(field));
  return sum;
}

function requestedMaximum(body: unknown): number | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const field of ['max_tokens', 'max_completion_tokens', 'max_output_tokens']) {
    if (typeof record[field] === 'number') return record[field];
  }
  const config = record.generationConfig as Record<string, unknown> | undefined;
  return typeof config?.maxOutputTokens === 'number' ? config.maxOutputTokens : undefined;
}
