/** The spec's endpoint families: permission checks, usage and routing are per family. */
export const ENDPOINT_FAMILIES = [
  'chat-completions',
  'messages',
  'responses',
  'video-generations',
  'images',
  'generate-content',
  'videoalt',
  'cloud-asset',
  'embeddings',
  'rerank',
] as const;

export type EndpointFamily = (typeof ENDPOINT_FAMILIES)[number];

/** Families whose requests are turns of text: what an Anthropic-native client can reach through /v1/messages. */
export const TEXT_FAMILIES: readonly EndpointFamily[] = ['chat-completions', 'messages', 'responses'];

/** What a model makes: text (with or without reasoning), images, videos, embedding vectors or rerank scores; `asset` is the asset library. */
export type ModelKind = 'chat' | 'reasoning' | 'image' | 'video' | 'embedding' | 'rerank' | 'asset';

/** The kinds an operator's model may have. */
export const OPERATOR_KINDS = ['chat', 'reasoning', 'image', 'video', 'embedding', 'rerank'] as const satisfies readonly ModelKind[];
/** Families an operator's model may be served on (videoalt and cloud-asset keep their own model lists). */
export const OPERATOR_FAMILIES = ['chat-completions', 'messages', 'responses', 'generate-content', 'images', 'video-generations', 'embeddings', 'rerank'] as const satisfies readonly EndpointFamily[];
/**
 * What the embeddings family checks of a model before any upstream call: its vector's length, the
 * most tokens one input may have, and whether `dimensions` may shorten it. Known for the built-in
 * sheet's models; an operator's own embedding model has none, and its upstream decides.
 */
export interface EmbeddingTraits {
  readonly dimensions: number;
  readonly maxInputTokens: number;
  readonly canShorten: boolean;
}

/** Public ids: no colon (it separates model and method on the native paths), at most 128 characters. */
export const MODEL_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._@/+-]{0,127}$';

/** Where a model of a kind is served unless its entry says otherwise. */
export const FAMILIES_BY_KIND: Readonly<Record<(typeof OPERATOR_KINDS)[number], readonly EndpointFamily[]>> = {
  chat: ['chat-completions', 'messages', 'responses', 'generate-content'],
  reasoning: ['chat-completions', 'messages', 'responses', 'generate-content'],
  image: ['images', 'generate-content'],
  video: ['video-generations'],
  embedding: ['embeddings'],
  rerank: ['rerank'],
};
