import type { EmbeddingInputType } from '../../protocols/openai-embeddings/types.js';

/** Cohere's `input_type` for our normalised role; documents when none is given (what an index is built from). */
export const cohereInputType = (inputType: EmbeddingInputType | undefined): 'search_query' | 'search_document' =>
  inputType === 'query' ? 'search_query' : 'search_document';

/** `meta` of a v2 answer: billed units and, where sent, the tokens read. */
export interface CohereMeta {
  billed_units?: { input_tokens?: number; search_units?: number };
  tokens?: { input_tokens?: number };
}

/** Input tokens of a v2 answer's `meta`: billed first, then read. */
export function inputTokensOf(meta: CohereMeta | undefined): number | undefined {
  const billed = meta?.billed_units?.input_tokens;
  if (typeof billed === 'number') return billed;
  const read = meta?.tokens?.input_tokens;
  return typeof read === 'number' ? read : undefined;
}
