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
] as const;

export type EndpointFamily = (typeof ENDPOINT_FAMILIES)[number];

/** Families whose requests are turns of text: what an Anthropic-native client can reach through /v1/messages. */
export const TEXT_FAMILIES: readonly EndpointFamily[] = ['chat-completions', 'messages', 'responses'];

/** What a model makes: text (with or without reasoning), images or videos; `asset` is the asset library. */
export type ModelKind = 'chat' | 'reasoning' | 'image' | 'video' | 'asset';

/** The kinds an operator's model may have. */
export const OPERATOR_KINDS = ['chat', 'reasoning', 'image', 'video'] as const satisfies readonly ModelKind[];
/** Families an operator's model may be served on (videoalt and cloud-asset keep their own model lists). */
export const OPERATOR_FAMILIES = ['chat-completions', 'messages', 'responses', 'generate-content', 'images', 'video-generations'] as const satisfies readonly EndpointFamily[];
/** Public ids: no colon (it separates model and method on the native paths), at most 128 characters. */
export const MODEL_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._@/+-]{0,127}$';

/** Where a model of a kind is served unless its entry says otherwise. */
export const FAMILIES_BY_KIND: Readonly<Record<(typeof OPERATOR_KINDS)[number], readonly EndpointFamily[]>> = {
  chat: ['chat-completions', 'messages', 'responses', 'generate-content'],
  reasoning: ['chat-completions', 'messages', 'responses', 'generate-content'],
  image: ['images', 'generate-content'],
  video: ['video-generations'],
};
