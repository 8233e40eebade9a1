import type { ProviderModule } from '../types.js';
import { API_KEY, REGION } from '../channel-fields.js';
import { lazySimulator } from '../../simulator/server.js';
import { VERTEX_BASE_URL, vertexAuthorize, vertexRouteCall } from './endpoint.js';
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
  authorize: vertexAuthorize,
  routeCall: vertexRouteCall,
  fetchedUrls: (fields) => {
    const tokenUri = typeof fields.service_account === 'string' ? serviceAccountTokenUri(fields.service_account) : undefined;
    return tokenUri ? [{ field: 'service_account.token_uri', url: tokenUri }] : [];
  },
  pairs: VERTEX_PAIRS,
  simulator: lazySimulator(async () => (await import('./simulator.js')).createVertexSimulator()),
  channelFields: {
    credentials: [
      { name: 'project', type: 'text', label: 'Project ID', required: false, secret: false, row: true, pattern: '^[a-z0-9][a-z0-9-]{0,62}$', hint: 'my-project (empty: express mode with an API key)' },
      { ...REGION, hint: 'global, us-central1, europe-west4…' },
      // The config file may name the key file's path; the admin API takes the key itself (issue 44).
      { name: 'service_account', type: 'json', label: 'Service-account key (JSON)', required: false, secret: true, pathInFile: true, hint: 'paste the key file (a path only in the configuration file)' },
      { ...API_KEY, required: false, hint: 'instead of a service account (express mode)' },
    ],
    baseUrlRequired: false,
  },
  prices: vertexPrices,
};
