import type { TranslatorPair } from '../../contracts/translator.js';

/** OpenAI's CreateEmbeddingRequest (protocols/embeddings.md §1). */
export type OpenAIEmbeddingsInput = string | string[] | number[] | number[][];
export type EmbeddingEncoding = 'float' | 'base64';

export interface OpenAIEmbeddingsRequest {
  model: string;
  input: OpenAIEmbeddingsInput;
  /** `float` when absent (the API's default); base64 is little-endian float32. */
  encoding_format?: EmbeddingEncoding;
  dimensions?: number;
  user?: string;
  [field: string]: unknown;
}

export interface OpenAIEmbedding {
  object: 'embedding';
  index: number;
  /** Floats, or base64 of their little-endian float32 bytes. */
  embedding: number[] | string;
}

export interface OpenAIEmbeddingsResponse {
  object: 'list';
  data: OpenAIEmbedding[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/**
 * The embeddings family's pair: no streaming. The request reaching a pair always has an array
 * `input` of at most `maxInputsPerCall` items (the family splits larger ones); the answer's `data`
 * is in input order, indexed from 0, each vector in the encoding `ctx.vectors.encoding` names.
 */
export interface EmbeddingsTranslatorPair extends Omit<TranslatorPair<OpenAIEmbeddingsRequest, OpenAIEmbeddingsResponse>, 'createStreamTranslator'> {
  /** The most inputs one upstream call may carry (OpenAI 2,048; Gemini's batch 100; Cohere 96). */
  readonly maxInputsPerCall: number;
}
