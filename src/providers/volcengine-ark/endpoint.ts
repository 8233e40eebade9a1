/**
 * Volcengine Ark data plane (shared/protocols/volcengine-ark.md).
 *   POST /api/v3/chat/completions   OpenAI-shaped, plus `thinking` and `reasoning_content`
 *   POST /api/v3/responses          Responses API
 * Auth: `Authorization: Bearer <ARK_API_KEY>`. Errors: https://volcengine.com/docs/82379/1299023
 */
import type { ChannelCredentials } from '../types.js';

export const ARK_BASE_URL = 'https://ark.cn-beijing.volces.com/api/v3';

export const arkAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.apiKey ? { authorization: `Bearer ${credentials.apiKey}` } : {};
