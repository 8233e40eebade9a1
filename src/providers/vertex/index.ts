import type { ProviderModule } from '../types.js';
import { lazySimulator } from '../../simulator/server.js';
import { VERTEX_BASE_URL, vertexAuthHeaders, vertexAuthorize, vertexRouteCall } from './endpoint.js';
import { VERTEX_PAIRS } from './pairs.js';
import { serviceAccountTokenUri } from './service-account.js';
import { vertexPrices } from './prices.js';

export const vertex: ProviderModule<'vertex'> = {
  vendor: 'vertex',
  genAiProviderName: 'gcp.vertex_ai',
  // The Gemini and Anthropic vendors already serve the public ids by default; a channel names its Vertex models.
  defaultModels: {},
  defaultBaseUrl: VERTEX_BASE_URL,
  addedPathPrefixes: ['/v1', '/v1beta1'],
  simulatorBasePath: '',
  authHeaders: vertexAuthHeaders,
  authorizeRequest: vertexAuthorize,
  routeCall: vertexRouteCall,
  fetchedUrls: (fields) => {
    const tokenUri = fields.service_account ? serviceAccountTokenUri(fields.service_account) : undefined;
    return tokenUri ? [{ field: 'service_account.token_uri', url: tokenUri }] : [];
  },
  pairs: VERTEX_PAIRS,
  simulator: lazySimulator(async () => (await import('./simulator.js')).createVertexSimulator()),
  channelFields: {
    credentials: [
      { name: 'project', label: 'Project ID', required: false, secret: false, hint: 'my-project (empty: express mode with an API key)' },
      { name: 'region', label: 'Region', required: false, secret: false, hint: 'global, us-central1, europe-west4…' },
      { name: 'service_account', label: 'Service-account key (JSON)', required: false, secret: true, multiline: true, hint: 'paste the key file, or its path on the gateway host' },
      { name: 'api_key', label: 'API key', required: false, secret: true, hint: 'instead of a service account (express mode)' },
    ],
    baseUrlRequired: false,
  },
  prices: vertexPrices,
};
