import type { ProviderModule } from '../types.js';
import { staticAuthorization } from '../static-authorization.js';
import { API_KEY_ONLY } from '../channel-fields.js';
import { geminiPrices } from './prices.js';
import { lazySimulator } from '../../simulator/server.js';
import { GEMINI_BASE_URL, geminiAuthHeaders } from './endpoint.js';
import { chatCompletionsToGemini } from './from-chat-completions.js';
import { generateContentToGemini } from './from-generate-content.js';
import { imagesToGemini } from './from-images.js';
import { embeddingsToGemini } from './from-embeddings.js';
import { geminiBatch } from './batch.js';

export const gemini: ProviderModule<'gemini'> = {
  vendor: 'gemini',
  // The Gemini API (generativelanguage.googleapis.com), as the GenAI conventions name it.
  genAiProviderName: 'gcp.gemini',
  defaultModels: { 'gamma-2.5-flash-lite': 'gemini-2.5-flash-lite', 'gamma-3.1-flash-image': 'gemini-3.1-flash-image', 'gemini-embedding-001': 'gemini-embedding-001' },
  defaultBaseUrl: GEMINI_BASE_URL,
  addedPathPrefixes: ['/v1beta', '/v1'],
  // Paths carry their own /v1beta prefix (endpoint.ts), so the simulator serves at its root.
  simulatorBasePath: '',
  authorize: staticAuthorization(geminiAuthHeaders),
  // /v1/messages is chat-shaped (spec §2), so one pair serves it and chat-completions channels.
  pairs: {
    'chat-completions': chatCompletionsToGemini,
    messages: chatCompletionsToGemini,
    'generate-content': generateContentToGemini,
    images: imagesToGemini,
    // batchEmbedContents, one content per input (from-embeddings.ts).
    embeddings: embeddingsToGemini,
  },
  batch: geminiBatch,
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.createGeminiSimulator())),
  channelFields: API_KEY_ONLY,
  prices: geminiPrices,
};
