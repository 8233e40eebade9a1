import type { ProviderModule } from '../types.js';
import { staticAuthorization } from '../static-authorization.js';
import { API_KEY_ONLY } from '../channel-fields.js';
import { lazySimulator } from '../../simulator/server.js';
import { voyagePrices } from './prices.js';
import { VOYAGE_BASE_URL, voyageAuthHeaders } from './endpoint.js';
import { embeddingsToVoyage } from './from-embeddings.js';
import { rerankToVoyage } from './from-rerank.js';

/** Voyage AI: embeddings and rerank only; no chat pair. */
export const voyage: ProviderModule<'voyage'> = {
  vendor: 'voyage',
  defaultModels: { 'voyage-3.5': 'voyage-3.5', 'rerank-2.5': 'rerank-2.5' },
  defaultBaseUrl: VOYAGE_BASE_URL,
  addedPathPrefixes: [],
  simulatorBasePath: '/v1',
  authorize: staticAuthorization(voyageAuthHeaders),
  pairs: { embeddings: embeddingsToVoyage, rerank: rerankToVoyage },
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.voyageSimulator)),
  channelFields: API_KEY_ONLY,
  prices: voyagePrices,
};
