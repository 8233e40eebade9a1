import type { ProviderModule } from '../types.js';
import { ACCESS_KEY, SECRET_KEY } from '../channel-fields.js';
import { VIDEOALT_MODELS } from '../../protocols/kling-video/types.js';
import { lazySimulator } from '../../simulator/server.js';
import { KLING_BASE_URL, klingAuthorize } from './endpoint.js';
import { videoaltToKling } from './video.js';
import { klingPrices } from './prices.js';

/** Every Kling `model_name` the /videoalt surface accepts is served under its own name. */
const KLING_MODELS: Record<string, string> = Object.fromEntries(
  [...new Set(Object.values(VIDEOALT_MODELS).flat())].map((model) => [model, model]),
);

export const kling: ProviderModule<'kling'> = {
  vendor: 'kling',
  defaultModels: KLING_MODELS,
  defaultBaseUrl: KLING_BASE_URL,
  addedPathPrefixes: ['/v1'],
  simulatorBasePath: '',
  authorize: klingAuthorize(),
  pairs: {},
  video: { videoalt: videoaltToKling },
  simulator: lazySimulator(() => import('./simulator.js').then((m) => m.klingSimulator)),
  channelFields: {
    // Kling signs a short-lived JWT with the access key pair; it takes no API key.
    credentials: [ACCESS_KEY, SECRET_KEY],
    baseUrlRequired: false,
  },
  prices: klingPrices,
};
