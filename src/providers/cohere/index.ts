import type { ProviderModule } from '../types.js';
import { staticAuthorization } from '../static-authorization.js';
import { API_KEY_ONLY } from '../channel-fields.js';
import { lazySimulator } from '../../simulator/server.js';
import { coherePrices } from './prices.js';
import { COHERE_BASE_URL, cohereAuthHeaders } from './endpoint.js';
import { embeddingsToCohere } from './from-embeddings.js';
import { rerankToCohere } from './from-rerank.js';

/** Cohere: embeddings (v2 /v2/embed) and rerank (v2 /v2/rerank) only; no chat pair. */
export const cohere: ProviderModule<'cohere'> = {
  vendor: 'cohere',
  defaultModels: { 'embed-v4.0': 'embed-v4.0', 'rerank-v3.5': 'rerank-v3.5' },
  defaultBaseUrl: COHERE_BASE_URL,
  // Paths carry their own /v2 (endpoint.ts): a base_url ending in it would double it.
  addedPathPrefixes: ['/v2'],
  simulatorBasePath: '',
  authorize: staticAuthorization(cohereAuthHeaders),
  pairs: { embeddings: embeddingsToCohere, rerank: rerankToCohere },
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.cohereSimulator)),
  channelFields: API_KEY_ONLY,
  prices: coherePrices,
};
