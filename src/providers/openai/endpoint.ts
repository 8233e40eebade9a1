/**
 * OpenAI (shared/protocols/openai.md).
 *   POST /v1/chat/completions   https://platform.openai.com/docs/api-reference/chat
 *   POST /v1/responses          https://platform.openai.com/docs/api-reference/responses
 * Auth: `Authorization: Bearer <key>`.
 */
import type { ChannelCredentials } from '../../contracts/upstream-call.js';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export const openaiAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.api_key ? { authorization: `Bearer ${credentials.api_key}` } : {};
