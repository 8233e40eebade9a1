import type { ProviderModule } from '../types.js';
import { ACCESS_KEY, API_KEY, REGION, SECRET_KEY } from '../channel-fields.js';
import { volcengineArkPrices } from './prices.js';
import { chatCompletionsToOpenAICompatible } from '../openai-compatible/from-chat-completions.js';
import { embeddingsToOpenAICompatible } from '../openai-compatible/from-embeddings.js';
import { lazySimulator } from '../../simulator/server.js';
import { ARK_BASE_URL, arkAuthorize } from './endpoint.js';
import { arkAssets } from './asset.js';
import { ARK_QUIRKS } from './quirks.js';
import { responsesPassThrough } from '../openai-compatible/responses-pass-through.js';

/**
 * Public beta-seed ids → Ark model ids. The 1.x ids carry their dates in the public id; the 2.0
 * ids are the 260215 releases (volcengine-ark.md "Base, auth, model ids"). Deployments that use
 * other versions or `ep-…` endpoint ids override these in their channel's `models`.
 */
const ARK_MODELS: Record<string, string> = {
  'beta-seed-2.0-pro': 'doubao-seed-2-0-pro-260215',
  'beta-seed-2.0-code': 'doubao-seed-2-0-code-260215',
  'beta-seed-2.0-lite': 'doubao-seed-2-0-lite-260215',
  'beta-seed-2.0-mini': 'doubao-seed-2-0-mini-260215',
  'beta-seed-1-8-251228': 'doubao-seed-1-8-251228',
  'beta-seed-1-6-flash-250828': 'doubao-seed-1-6-flash-250828',
  'beta-seed-1-6-251015': 'doubao-seed-1-6-251015',
  'beta-seed-1-6-lite-251015': 'doubao-seed-1-6-lite-251015',
  'beta-seed-1-6-vision-250815': 'doubao-seed-1-6-vision-250815',
};

export const volcengineArk: ProviderModule<'volcengine-ark'> = {
  vendor: 'volcengine-ark',
  defaultModels: ARK_MODELS,
  defaultBaseUrl: ARK_BASE_URL,
  addedPathPrefixes: [],
  simulatorBasePath: '/api/v3',
  authorize: arkAuthorize,
  asset: arkAssets,
  pairs: {
    'chat-completions': chatCompletionsToOpenAICompatible(ARK_QUIRKS),
    // /v1/messages is chat-shaped, so any chat upstream can serve it.
    messages: chatCompletionsToOpenAICompatible(ARK_QUIRKS),
    responses: responsesPassThrough,
    // POST /embeddings, OpenAI's shape with base64 (doubao-embedding); 256 inputs a call (unverified).
    embeddings: embeddingsToOpenAICompatible({ maxInputsPerCall: 256 }),
  },
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.volcengineArkSimulator)),
  channelFields: {
    credentials: [
      API_KEY,
      // The asset library is an OpenAPI signed with an access key pair, in the channel's region.
      { ...ACCESS_KEY, required: false, hint: 'asset library (AK/SK signing)' },
      { ...SECRET_KEY, required: false, hint: 'asset library (AK/SK signing)' },
      { ...REGION, hint: 'cn-beijing (AK/SK signing)' },
    ],
    baseUrlRequired: false,
  },
  prices: volcengineArkPrices,
};
