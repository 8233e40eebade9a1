import type { ProviderModule } from '../types.js';
import { staticAuthorization } from '../static-authorization.js';
import { API_KEY_ONLY } from '../channel-fields.js';
import { alibabaDashScopePrices } from './prices.js';
import { lazySimulator } from '../../simulator/server.js';
import { DASHSCOPE_BASE_URL, DASHSCOPE_EMBEDDINGS_PATH, DASHSCOPE_MAX_EMBEDDING_INPUTS, dashscopeAuthHeaders } from './endpoint.js';
import { embeddingsToOpenAICompatible } from '../openai-compatible/from-embeddings.js';
import { videoGenerationsToDashScope } from './video.js';

/** DashScope serves the reference-to-video surface and embeddings (OpenAI-compatible mode); no chat pairs. */
export const alibabaDashScope: ProviderModule<'alibaba-dashscope'> = {
  vendor: 'alibaba-dashscope',
  defaultModels: { 'zeta-1.0-r2v': 'happyhorse-1.0-r2v' },
  defaultBaseUrl: DASHSCOPE_BASE_URL,
  addedPathPrefixes: ['/api/v1'],
  simulatorBasePath: '',
  authorize: staticAuthorization(dashscopeAuthHeaders),
  pairs: {
    embeddings: embeddingsToOpenAICompatible({ maxInputsPerCall: DASHSCOPE_MAX_EMBEDDING_INPUTS, path: DASHSCOPE_EMBEDDINGS_PATH, floatOnly: true }),
  },
  video: { 'video-generations': videoGenerationsToDashScope },
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.alibabaDashScopeSimulator)),
  channelFields: API_KEY_ONLY,
  prices: alibabaDashScopePrices,
};
