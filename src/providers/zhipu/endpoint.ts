/**
 * Zhipu / Z.ai GLM (shared/protocols/zhipu.md), OpenAI-compatible chat.
 *   POST {base}/chat/completions, base https://open.bigmodel.cn/api/paas/v4 (China) or
 *   https://api.z.ai/api/paas/v4 (international). Auth: `Authorization: Bearer <key>`.
 */
import type { ChannelCredentials } from '../../contracts/upstream-call.js';

export const ZHIPU_BASE_URL = 'https://open.bigmodel.cn/api/paas/v4';

export const zhipuAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.api_key ? { authorization: `Bearer ${credentials.api_key}` } : {};
