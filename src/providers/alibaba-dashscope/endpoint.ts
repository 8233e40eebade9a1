/**
 * Alibaba Cloud Model Studio / DashScope video synthesis (shared/protocols/alibaba-dashscope.md).
 *   POST /api/v1/services/aigc/video-generation/video-synthesis   create (async only: X-DashScope-Async)
 *   GET  /api/v1/tasks/{task_id}                                  query
 * Docs: https://www.alibabacloud.com/help/doc-detail/3030778.html
 * Auth: `Authorization: Bearer <DASHSCOPE_API_KEY>`; host, model and key must share a region.
 */
import type { ChannelCredentials } from '../../contracts/upstream-call.js';

/** Singapore (international) region; Beijing is https://dashscope.aliyuncs.com. */
export const DASHSCOPE_BASE_URL = 'https://dashscope-intl.aliyuncs.com';

export const DASHSCOPE_CREATE_PATH = '/api/v1/services/aigc/video-generation/video-synthesis';
export const dashscopeTaskPath = (taskId: string): string => `/api/v1/tasks/${encodeURIComponent(taskId)}`;

export const dashscopeAuthHeaders = (credentials: ChannelCredentials): Record<string, string> =>
  credentials.api_key ? { authorization: `Bearer ${credentials.api_key}` } : {};

/**
 * Embeddings go to the OpenAI-compatible mode (`POST {base}/compatible-mode/v1/embeddings`, Bearer
 * key): text-embedding-v3 and v4 take at most 10 inputs a call and answer floats only.
 */
export const DASHSCOPE_EMBEDDINGS_PATH = '/compatible-mode/v1/embeddings';
export const DASHSCOPE_MAX_EMBEDDING_INPUTS = 10;
