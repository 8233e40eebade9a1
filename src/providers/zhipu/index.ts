import type { ProviderModule } from '../types.js';
import { chatCompletionsToOpenAICompatible } from '../openai-compatible/from-chat-completions.js';
import { zhipuSimulator } from '../../simulator/zhipu.js';
import { ZHIPU_BASE_URL, zhipuAuthHeaders } from './endpoint.js';
import { ZHIPU_QUIRKS } from './quirks.js';

export const zhipu: ProviderModule = {
  vendor: 'zhipu',
  defaultModels: { 'epsilon-4.7': 'glm-4.7' },
  defaultBaseUrl: ZHIPU_BASE_URL,
  simulatorBasePath: '/api/paas/v4',
  authHeaders: zhipuAuthHeaders,
  pairs: {
    'chat-completions': chatCompletionsToOpenAICompatible(ZHIPU_QUIRKS),
  },
  simulator: zhipuSimulator,
};
