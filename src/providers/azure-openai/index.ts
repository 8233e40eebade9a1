import type { ProviderModule } from '../types.js';
import { API_KEY } from '../channel-fields.js';
import { lazySimulator } from '../../simulator/server.js';
import { AZURE_OPENAI_BASE_URL, azureAuthorize, azureRouteCall } from './endpoint.js';
import { AZURE_OPENAI_PAIRS } from './pairs.js';
import { azureOpenAIBatch } from './batch.js';

export const azureOpenAI: ProviderModule<'azure-openai'> = {
  vendor: 'azure-openai',
  genAiProviderName: 'azure.ai.openai',
  // Deployments are the customer's own names: a channel maps its public ids to them.
  defaultModels: {},
  defaultBaseUrl: AZURE_OPENAI_BASE_URL,
  addedPathPrefixes: ['/openai'],
  simulatorBasePath: '',
  authorize: azureAuthorize,
  routeCall: azureRouteCall,
  pairs: AZURE_OPENAI_PAIRS,
  batch: azureOpenAIBatch,
  // Entra ID's token endpoint lives under the sovereign cloud's sign-in host.
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.azureOpenAISimulator)),
  channelFields: {
    credentials: [
      { ...API_KEY, required: false, hint: 'or Entra ID below' },
      { name: 'api_version', type: 'text', label: 'API version', required: false, secret: false, row: true, pattern: '^[A-Za-z0-9._-]{1,40}$', hint: 'e.g. 2024-10-21; empty: the v1 API' },
      { name: 'tenant_id', type: 'text', label: 'Entra tenant ID', required: false, secret: false, minLength: 1, maxLength: 100, hint: 'Entra ID instead of a key' },
      { name: 'client_id', type: 'text', label: 'Entra client ID', required: false, secret: false, minLength: 1, maxLength: 100 },
      { name: 'client_secret', type: 'text', label: 'Entra client secret', required: false, secret: true },
      { name: 'authority_host', type: 'url', label: 'Entra sign-in host', required: false, secret: false, hint: 'https://login.microsoftonline.com unless set (sovereign clouds)' },
    ],
    baseUrlRequired: true,
  },
};
