import type { ProviderModule } from '../types.js';
import { staticAuthorization } from '../static-authorization.js';
import { API_KEY_ONLY } from '../channel-fields.js';
import { zhipuPrices } from './prices.js';
import { chatCompletionsToOpenAICompatible } from '../openai-compatible/from-chat-completions.js';
import { responsesToOpenAICompatible } from '../openai-compatible/from-responses.js';
import { embeddingsToOpenAICompatible } from '../openai-compatible/from-embeddings.js';
import { lazySimulator } from '../../simulator/server.js';
import { ZHIPU_BASE_URL, zhipuAuthHeaders } from './endpoint.js';
import { ZHIPU_QUIRKS } from './quirks.js';
import { ZHIPU_RESPONSES_QUIRKS } from './responses-quirks.js';

export const zhipu: ProviderModule<'zhipu'> = {
  vendor: 'zhipu',
  defaultModels: { 'epsilon-4.7': 'glm-4.7' },
  defaultBaseUrl: ZHIPU_BASE_URL,
  addedPathPrefixes: [],
  simulatorBasePath: '/api/paas/v4',
  authorize: staticAuthorization(zhipuAuthHeaders),
  pairs: {
    'chat-completions': chatCompletionsToOpenAICompatible(ZHIPU_QUIRKS),
    // /v1/messages is chat-shaped, so any chat upstream can serve it.
    messages: chatCompletionsToOpenAICompatible(ZHIPU_QUIRKS),
    // Zhipu has no Responses API; /v1/responses is served through its chat API.
    responses: responsesToOpenAICompatible(ZHIPU_QUIRKS, ZHIPU_RESPONSES_QUIRKS),
    // POST /embeddings (embedding-3, embedding-2): at most 64 inputs a call, floats only.
    embeddings: embeddingsToOpenAICompatible({ maxInputsPerCall: 64, floatOnly: true }),
  },
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.zhipuSimulator)),
  channelFields: API_KEY_ONLY,
  prices: zhipuPrices,
};
