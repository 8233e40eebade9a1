import type { IncomingHttpHeaders } from 'node:http';

/**
 * `/v1/models` and `/v1/models/{id}` answer two clients: OpenAI's `models.list/retrieve` and
 * Google's `models.list/get` (@google/genai 2+ calls the Gemini API under `v1`, not `v1beta`).
 * They are told apart by how the key travels: Google's SDKs send `x-goog-api-key` (REST users
 * `?key=`) and an `x-goog-api-client` header, never `Authorization: Bearer`; OpenAI-style clients
 * send the bearer header. A bearer header therefore always means the OpenAI shape.
 */
export function isGoogleStyleRequest(url: string, headers: IncomingHttpHeaders): boolean {
  if (typeof headers.authorization === 'string') return false;
  return headers['x-goog-api-key'] !== undefined || headers['x-goog-api-client'] !== undefined || /[?&]key=/.test(url);
}

/** The Gemini-native method paths: `/v1beta/models/{model}:{method}` and the same under `/v1`. */
export const isGoogleMethodPath = (url: string): boolean => url.startsWith('/v1/models/') && url.split('?')[0]!.includes(':');
