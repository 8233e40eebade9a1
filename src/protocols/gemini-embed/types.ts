/**
 * The Gemini API's embedding methods (protocols/embeddings.md §2, ai.google.dev/api/embeddings):
 * `POST /v1beta/models/{model}:embedContent` and `:batchEmbedContents` (at most 100 requests a
 * batch upstream; @google/genai always calls the batch method, even for one text).
 */
export type GeminiEmbedMethod = 'embedContent' | 'batchEmbedContents';

export const GEMINI_EMBED_METHODS: readonly GeminiEmbedMethod[] = ['embedContent', 'batchEmbedContents'];

/** Google's task types; `title` only applies to RETRIEVAL_DOCUMENT. */
export const GEMINI_TASK_TYPES = [
  'TASK_TYPE_UNSPECIFIED',
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
] as const;

export type GeminiTaskType = (typeof GEMINI_TASK_TYPES)[number];

export interface GeminiEmbedContentRequest {
  /** `models/{model}`; optional on embedContent, the batch's items carry it. */
  model?: string;
  content: { parts: Array<{ text?: string }>; role?: string };
  taskType?: GeminiTaskType;
  title?: string;
  outputDimensionality?: number;
}

export interface GeminiBatchEmbedContentsRequest {
  requests: GeminiEmbedContentRequest[];
}

export interface GeminiContentEmbedding {
  values: number[];
}

export interface GeminiEmbedContentResponse {
  embedding: GeminiContentEmbedding;
}

export interface GeminiBatchEmbedContentsResponse {
  /** One per request, in request order. */
  embeddings: GeminiContentEmbedding[];
}

/** Upstream's limit on requests per batchEmbedContents call. */
export const GEMINI_MAX_BATCH = 100;

/** The normalised retrieval role of a task type: query-side tasks embed as queries, RETRIEVAL_DOCUMENT as documents. */
export function inputTypeOfTask(task: string | undefined): 'query' | 'document' | undefined {
  if (task === 'RETRIEVAL_DOCUMENT') return 'document';
  if (task === 'RETRIEVAL_QUERY' || task === 'QUESTION_ANSWERING' || task === 'FACT_VERIFICATION' || task === 'CODE_RETRIEVAL_QUERY') return 'query';
  return undefined;
}
