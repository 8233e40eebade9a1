/**
 * The finite range of every numeric request field the gateway or a simulator acts on (issue 13):
 * the spec's range where it gives one, the vendor's documented limit where it does not. Checked
 * by the family schemas before any work; docs/limits.md lists them.
 */
/**
 * Free text the gateway stores in its own columns (names, e-mails, ids, URLs): no NUL character,
 * which PostgreSQL text cannot hold (a 500 there, fine on SQLite; issue 13). Refused as a 400 everywhere.
 */
export const NO_NUL = '^[^\\u0000]*$';

export const LIMITS = {
  /** OpenAI chat `n`: 1..128. */
  choices: 128,
  /** Output tokens a request may ask for (max_tokens, max_completion_tokens, max_output_tokens,
   * maxOutputTokens): the largest any catalog vendor accepts (Anthropic's 128 K output). */
  outputTokens: 131_072,
  /** OpenAI `top_logprobs`: 0..20. */
  topLogprobs: 20,
  /** Gemini `candidateCount`: 1..8. */
  candidates: 8,
  /** Gemini `topK` and Anthropic `top_k`. */
  topK: 1_000,
  /** Gemini `thinkingBudget` (-1 = automatic). */
  thinkingBudget: 32_768,
  /** Ark video understanding `fps`: 0.2..5. */
  fps: { minimum: 0.2, maximum: 5 },
  /** `seed`: the integers a double holds exactly. */
  seed: Number.MAX_SAFE_INTEGER,
  /** Operator-set request and token limits (rpm, tpm). */
  perMinute: 1_000_000_000,
  /** Operator-set `max_parallel_requests` per key. */
  parallelRequests: 100_000,
  /** Operator-set budgets in USD. */
  budgetUsd: 1_000_000_000,
  /** Timestamps in Unix seconds: up to the end of year 9999. */
  unixSeconds: 253_402_300_799,
  /** Paging (ListAssets PageNumber). */
  pageNumber: 1_000_000,
} as const;
