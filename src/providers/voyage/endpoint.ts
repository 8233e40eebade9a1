/**
 * Voyage AI (protocols/embeddings.md §4, §5): `POST {base}/embeddings`, `POST {base}/rerank`,
 * base https://api.voyageai.com/v1. Auth: `Authorization: Bearer <key>`.
 */
import type { ChannelCredentials } from '../../contracts/upstream-call.js';

export const VOYAGE_BASE_URL = 'https://api.voyageai.com/v1';

export const voyageAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.api_key ? { authorization: `Bearer ${credentials.api_key}` } : {};

/** Inputs per /v1/embeddings call (embeddings.md §4). */
export const VOYAGE_MAX_INPUTS = 1000;
