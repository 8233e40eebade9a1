import type { ProviderModule } from '../types.js';
import { API_KEY_ONLY } from '../channel-fields.js';
import { openaiPrices } from './prices.js';
import { chatCompletionsToOpenAICompatible } from '../openai-compatible/from-chat-completions.js';
import { OPENAI_QUIRKS } from '../openai-compatible/quirks.js';
import { responsesPassThrough } from '../openai-compatible/responses-pass-through.js';
import { lazySimulator } from '../../simulator/server.js';
import { OPENAI_BASE_URL, openaiAuthHeaders } from './endpoint.js';

export const openai: ProviderModule<'openai'> = {
  vendor: 'openai',
  defaultModels: { 'delta-4.1': 'gpt-4.1' },
  defaultBaseUrl: OPENAI_BASE_URL,
  addedPathPrefixes: [],
  simulatorBasePath: '/v1',
  authHeaders: openaiAuthHeaders,
  pairs: {
    'chat-completions': chatCompletionsToOpenAICompatible(OPENAI_QUIRKS),
    // /v1/messages is chat-shaped, so any chat upstream can serve it.
    messages: chatCompletionsToOpenAICompatible(OPENAI_QUIRKS),
    responses: responsesPassThrough,
  },
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.openaiSimulator)),
  channelFields: API_KEY_ONLY,
  prices: openaiPrices,
};
