/**
 * Token and media usage of one request, as the gateway accounts it: OpenAI's convention, where the
 * prompt counts every input token (cache reads and writes included) and the completion every
 * output token (reasoning included). The optional parts say how much of each was billed apart
 * (issue 21); each vendor's usage mapping fills them from its own shape.
 */
export interface Usage {
  promptTokens: number;
  /** Includes reasoning tokens, as OpenAI counts them. */
  completionTokens: number;
  reasoningTokens: number;
  totalTokens: number;
  /** Of promptTokens: read from the prompt cache (OpenAI cached_tokens, Anthropic cache_read_input_tokens, Gemini cachedContentTokenCount). */
  cachedTokens?: number;
  /** Of promptTokens: written to the prompt cache (Anthropic's 5-minute writes, OpenAI's cache_write_tokens). */
  cacheWrite5mTokens?: number;
  /** Of promptTokens: written to Anthropic's 1-hour cache. */
  cacheWrite1hTokens?: number;
  /** Of promptTokens: image tokens (GPT image models, Gemini's IMAGE modality). */
  imageInputTokens?: number;
  /** Of completionTokens: image tokens (GPT image models, Gemini image models). */
  imageOutputTokens?: number;
  images?: number;
  videoSeconds?: number;
  /** Rerank searches (one query over its documents), for models priced per search. */
  searches?: number;
}

export const emptyUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, reasoningTokens: 0, totalTokens: 0 });
