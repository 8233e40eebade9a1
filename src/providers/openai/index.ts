import type { ProviderModule } from '../types.js';
import { staticAuthorization } from '../static-authorization.js';
import { API_KEY_ONLY } from '../channel-fields.js';
import { openaiPrices } from './prices.js';
import { chatCompletionsToOpenAICompatible } from '../openai-compatible/from-chat-completions.js';
import { OPENAI_QUIRKS } from '../openai-compatible/quirks.js';
import { responsesPassThrough } from '../openai-compatible/responses-pass-through.js';
import { embeddingsToOpenAICompatible } from '../openai-compatible/from-embeddings.js';
import { rerankToOpenAICompatible } from '../openai-compatible/from-rerank.js';
import { lazySimulator } from '../../simulator/server.js';
import { OPENAI_BASE_URL, openaiAuthHeaders } from './endpoint.js';
import { openaiResponsesOverChat } from './responses-over-chat.js';
import { openaiBatch } from './batch.js';

export const openai: ProviderModule<'openai'> = {
  vendor: 'openai',
  // The embedding and rerank models answer from the simulator out of the box (retrieval with no vendor account).
  defaultModels: {
    'delta-4.1': 'gpt-4.1',
    'text-embedding-3-small': 'text-embedding-3-small',
    'text-embedding-3-large': 'text-embedding-3-large',
    'text-embedding-ada-002': 'text-embedding-ada-002',
    'rerank-v3.5': 'rerank-v3.5',
  },
  defaultBaseUrl: OPENAI_BASE_URL,
  addedPathPrefixes: [],
  simulatorBasePath: '/v1',
  authorize: staticAuthorization(openaiAuthHeaders),
  pairs: {
    'chat-completions': chatCompletionsToOpenAICompatible(OPENAI_QUIRKS),
    // /v1/messages is chat-shaped, so any chat upstream can serve it.
    messages: chatCompletionsToOpenAICompatible(OPENAI_QUIRKS),
    responses: responsesPassThrough,
    // OpenAI takes 2,048 inputs a call; a base_url to vLLM, Ollama, TEI or LM Studio speaks the same.
    embeddings: embeddingsToOpenAICompatible({ maxInputsPerCall: 2048 }),
    // OpenAI has no rerank; OpenAI-compatible servers behind a base_url (vLLM, Jina-shaped) and the simulator do.
    rerank: rerankToOpenAICompatible,
  },
  // `responses: translate` channels (chat-only servers; the default off api.openai.com).
  responsesOverChat: openaiResponsesOverChat,
  batch: openaiBatch,
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.openaiSimulator)),
  channelFields: API_KEY_ONLY,
  prices: openaiPrices,
};
