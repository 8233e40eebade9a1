/**
 * OpenAI Images wire types (shared/protocols/openai.md §3, CreateImageRequest / ImagesResponse).
 * Only the fields the gateway reads or writes are named.
 */
export const OPENAI_IMAGE_SIZES = ['auto', '1024x1024', '1536x1024', '1024x1536', '256x256', '512x512', '1792x1024', '1024x1792'] as const;
export type OpenAIImageSize = (typeof OPENAI_IMAGE_SIZES)[number];

export interface OpenAIImagesRequest {
  model: string;
  prompt: string;
  n?: number;
  size?: OpenAIImageSize;
  response_format?: 'url' | 'b64_json';
  [extra: string]: unknown;
}

export interface OpenAIImageData {
  b64_json?: string;
  url?: string;
  revised_prompt?: string;
}

export interface OpenAIImagesUsage {
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  input_tokens_details?: { text_tokens: number; image_tokens: number };
}

export interface OpenAIImagesResponse {
  created: number;
  data: OpenAIImageData[];
  usage?: OpenAIImagesUsage;
}
