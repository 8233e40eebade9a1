import type { TranslatorPair } from '../../contracts/translator.js';

/** The Cohere/Jina rerank request most clients send (protocols/embeddings.md §5). */
export interface RerankRequest {
  model: string;
  query: string;
  documents: Array<string | { text: string }>;
  top_n?: number;
  return_documents?: boolean;
  [field: string]: unknown;
}

export interface RerankResult {
  /** Position in the request's `documents`. */
  index: number;
  relevance_score: number;
  document?: { text: string };
}

export interface RerankResponse {
  id: string;
  model: string;
  /** Highest score first. */
  results: RerankResult[];
  usage: { total_tokens: number };
}

/** The rerank family's pair: no streaming; `results` sorted by score, `top_n` applied. */
export type RerankTranslatorPair = Omit<TranslatorPair<RerankRequest, RerankResponse>, 'createStreamTranslator'>;
