import { openAICompatibleSimulator } from '../openai-compatible/simulator.js';

const ZHIPU_CODES: Record<number, string> = { 400: '1214', 401: '1000', 404: '1211', 429: '1302', 500: '500' };

/** Zhipu's error body: `{error:{code:"<business code>",message}}` (zhipu.md "Errors"). */
export const zhipuErrorBody = (status: number, message: string) => ({ error: { code: ZHIPU_CODES[status] ?? '500', message } });

export const zhipuSimulator = openAICompatibleSimulator({
  vendor: 'zhipu',
  basePath: '/api/paas/v4',
  errorBody: zhipuErrorBody,
  isReasoningModel: (model) => model.startsWith('glm-4.'),
  hasThinkingSwitch: true,
  alwaysStreamUsage: true,
  // GLM hosts web search and knowledge-base retrieval as chat tools (docs.bigmodel.cn, `tools`).
  hostedToolTypes: ['web_search', 'retrieval'],
});
