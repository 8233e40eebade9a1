import type { ProviderModule } from '../types.js';
import { lazySimulator } from '../../simulator/server.js';
import { AZURE_OPENAI_BASE_URL, azureAuthHeaders, azureAuthorize, azureRouteCall } from './endpoint.js';
import { AZURE_OPENAI_PAIRS } from './pairs.js';

export const azureOpenAI: ProviderModule<'azure-openai'> = {
  vendor: 'azure-openai',
  genAiProviderName: 'azure.ai.openai',
  // Deployments are the customer's own names: a channel maps its public ids to them.
  defaultModels: {},
  defaultBaseUrl: AZURE_OPENAI_BASE_URL,
  addedPathPrefixes: ['/openai'],
  simulatorBasePath: '',
  authHeaders: azureAuthHeaders,
  authorizeRequest: azureAuthorize,
  routeCall: azureRouteCall,
  pairs: AZURE_OPENAI_PAIRS,
  // Entra ID's token endpoint lives under the sovereign cloud's sign-in host.
  fetchedUrls: (fields) => (fields.authority_host ? [{ field: 'authority_host', url: fields.authority_host }] : []),
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.azureOpenAISimulator)),
  channelFields: {
    credentials: [
      { name: 'api_key', label: 'API key', required: false, secret: true, hint: 'or Entra ID below' },
      { name: 'api_version', label: 'API version', required: false, secret: false, hint: 'e.g. 2024-10-21; empty: the v1 API' },
      { name: 'tenant_id', label: 'Entra tenant ID', required: false, secret: false, hint: 'Entra ID instead of a key' },
      { name: 'client_id', label: 'Entra client ID', required: false, secret: false },
      { name: 'client_secret', label: 'Entra client secret', required: false, secret: true },
    ],
    baseUrlRequired: true,
  },
};
