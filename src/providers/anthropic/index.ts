import type { ProviderModule } from '../types.js';
import { staticAuthorization } from '../static-authorization.js';
import { API_KEY_ONLY } from '../channel-fields.js';
import { anthropicPrices } from './prices.js';
import { lazySimulator } from '../../simulator/server.js';
import { ANTHROPIC_BASE_URL, ANTHROPIC_DEFAULT_HEADERS, anthropicAuthHeaders } from './endpoint.js';
import { chatCompletionsToAnthropic } from './from-chat-completions.js';
import { messagesPassThrough } from './messages-pass-through.js';
import { anthropicBatch } from './batch.js';

/** Public alpha ids → Anthropic model ids (anthropic.md: `alpha-` becomes `claude-`). */
const ANTHROPIC_MODELS: Record<string, string> = {
  'alpha-sonnet-4-5-20250929': 'claude-sonnet-4-5-20250929',
  'alpha-opus-4-20250514': 'claude-opus-4-20250514',
};

export const anthropic: ProviderModule<'anthropic'> = {
  vendor: 'anthropic',
  defaultModels: ANTHROPIC_MODELS,
  defaultBaseUrl: ANTHROPIC_BASE_URL,
  addedPathPrefixes: ['/v1'],
  simulatorBasePath: '',
  defaultHeaders: ANTHROPIC_DEFAULT_HEADERS,
  authorize: staticAuthorization(anthropicAuthHeaders),
  // /v1/messages is chat-shaped (spec §2), so one pair serves it and chat-completions channels.
  pairs: {
    'chat-completions': chatCompletionsToAnthropic,
    messages: chatCompletionsToAnthropic,
    // Anthropic-native /v1/messages (requests with `anthropic-version`): the same protocol, passed through.
    'anthropic-messages': messagesPassThrough,
  },
  batch: anthropicBatch,
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.anthropicSimulator)),
  channelFields: API_KEY_ONLY,
  prices: anthropicPrices,
};
