import type { PriceBook } from '../catalog/price-book.js';
import type { Usage } from '../providers/types.js';
import { billingDetailsOf } from './billing-details.js';
import { priceUsage, type Priced } from './cost-lines.js';

/**
 * What one request or task costs (issue 21): its usage at the price of the channel that served
 * it. `body` is read only when images or video seconds were made (their prices may go by size or
 * resolution). Undefined when nothing was used or the model has no price.
 */
export function chargeOf(prices: PriceBook, channel: string | null | undefined, model: string, usage: Usage | undefined, body: unknown): Priced | undefined {
  if (!usage) return undefined;
  const resolved = prices.priceFor(channel, model);
  if (!resolved) return undefined;
  const images = usage.images ?? 0;
  const videoSeconds = usage.videoSeconds ?? 0;
  const details = images > 0 || videoSeconds > 0 ? billingDetailsOf(body) : undefined;
  return priceUsage(resolved.price, {
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    reasoningTokens: usage.reasoningTokens,
    cachedTokens: usage.cachedTokens,
    cacheWrite5mTokens: usage.cacheWrite5mTokens,
    cacheWrite1hTokens: usage.cacheWrite1hTokens,
    imageInputTokens: usage.imageInputTokens,
    imageOutputTokens: usage.imageOutputTokens,
    images,
    videoSeconds,
    imageSize: details?.imageSize,
    imageQuality: details?.imageQuality,
    videoResolution: details?.videoResolution,
  });
}
