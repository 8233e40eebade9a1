/**
 * Cohere v2 (protocols/embeddings.md §3, §5): `POST {base}/v2/embed`, `POST {base}/v2/rerank`,
 * base https://api.cohere.com. Auth: `Authorization: Bearer <key>`.
 */
import type { ChannelCredentials } from '../../contracts/upstream-call.js';

export const COHERE_BASE_URL = 'https://api.cohere.com';

export const cohereAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.api_key ? { authorization: `Bearer ${credentials.api_key}` } : {};

/** Texts per /v2/embed call (embeddings.md §3); larger requests are split by the family. */
export const COHERE_MAX_TEXTS = 96;
