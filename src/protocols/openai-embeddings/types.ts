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
  /**
   * The gateway's normalised retrieval role (not OpenAI's): vendors that embed queries and
   * documents differently get their own word for it (Cohere `search_query`, Gemini
   * `RETRIEVAL_QUERY`, Voyage `query`); OpenAI-compatible upstreams never see it.
   */
  input_type?: EmbeddingInputType;
  /** Gemini-native requests only: the client's own `taskType` and per-input `title`s, for a Gemini upstream. */
  gemini_task_type?: string;
  titles?: Array<string | null>;
  [field: string]: unknown;
}

export type EmbeddingInputType = 'query' | 'document';

/** The fields above that only the gateway reads: an OpenAI-compatible upstream gets the body without them. */
export const GATEWAY_EMBEDDING_FIELDS = ['input_type', 'gemini_task_type', 'titles'] as const;

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
  /** A lower limit for some of the vendor's models (Bedrock's Titan: one text a call), by upstream model id. */
  readonly maxInputsFor?: ((upstreamModel: string) => number) | undefined;
}
