import type { ProviderModule } from '../types.js';
import { API_KEY_ONLY } from '../channel-fields.js';
import { alibabaDashScopePrices } from './prices.js';
import { lazySimulator } from '../../simulator/server.js';
import { DASHSCOPE_BASE_URL, dashscopeAuthHeaders } from './endpoint.js';
import { videoGenerationsToDashScope } from './video.js';

/** DashScope serves only the reference-to-video surface (no chat pairs). */
export const alibabaDashScope: ProviderModule<'alibaba-dashscope'> = {
  vendor: 'alibaba-dashscope',
  defaultModels: { 'zeta-1.0-r2v': 'happyhorse-1.0-r2v' },
  defaultBaseUrl: DASHSCOPE_BASE_URL,
  addedPathPrefixes: ['/api/v1'],
  simulatorBasePath: '',
  authHeaders: dashscopeAuthHeaders,
  pairs: {},
  video: { 'video-generations': videoGenerationsToDashScope },
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.alibabaDashScopeSimulator)),
  channelFields: API_KEY_ONLY,
  prices: alibabaDashScopePrices,
};
