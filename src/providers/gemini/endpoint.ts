/**
 * Google Gemini API (shared/protocols/gemini.md "Endpoints and auth").
 *   POST /v1beta/models/{model}:generateContent                https://ai.google.dev/api/generate-content
 *   POST /v1beta/models/{model}:streamGenerateContent?alt=sse  (SSE framing, one parser for all upstreams)
 * Auth: `x-goog-api-key: <key>`, as the SDK sends it. The `?key=` form also works upstream but
 * would put our credential into URLs (and proxy logs), so the gateway never uses it.
 */
import type { ChannelCredentials } from '../../contracts/upstream-call.js';
import type { GeminiMethod } from '../../protocols/gemini-generate/types.js';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';
export const GEMINI_API_VERSION = 'v1beta';

export const geminiModelPath = (upstreamModel: string, method: GeminiMethod): string =>
  `/${GEMINI_API_VERSION}/models/${encodeURIComponent(upstreamModel)}:${method}`;

export const geminiAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.api_key ? { 'x-goog-api-key': credentials.api_key } : {};

/** `POST /v1beta/models/{model}:embedContent | :batchEmbedContents` (protocols/embeddings.md §2). */
export const geminiEmbedPath = (upstreamModel: string, method: 'embedContent' | 'batchEmbedContents'): string =>
  `/${GEMINI_API_VERSION}/models/${encodeURIComponent(upstreamModel)}:${method}`;
