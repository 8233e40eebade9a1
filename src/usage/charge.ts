import type { PriceBook } from '../catalog/price-book.js';
import type { PriceConfig } from '../config/schema.js';
import type { Usage } from '../contracts/usage.js';
import { NO_MEDIA, type MediaFacts } from '../contracts/request-facts.js';
import type { BatchMode } from '../catalog/batch-price.js';
import { costOfUsage, perImage, perVideoSecond, type BillableUsage } from './cost-lines.js';

/** What a request costs, and the price it was billed at (JSON), from which its bill is shown line by line. */
export interface Charge {
  usd: number;
  billedPrice: string;
}

/**
 * What one request or task costs (issue 21): its usage at the price of the channel that served
 * it. `media` (the size a request asked for, from its family's facts) is read only when images or video seconds were made (their prices may go by size or
 * resolution): then the price kept with the event is flattened to the unit that applied. The
 * price's JSON is made once per (channel, model), so the request path only adds up numbers.
 * Undefined when nothing was used or the model has no price. `batch`: the request is a line of a batch.
 */
export function chargeOf(prices: PriceBook, channel: string | null | undefined, model: string, usage: Usage | undefined, media: MediaFacts | undefined, batch?: BatchMode): Charge | undefined {
  if (!usage) return undefined;
  // A line of a batch pays the model's batch price (issue 46).
  const resolved = batch ? prices.batchPriceFor(channel, model, batch) : prices.priceFor(channel, model);
  if (!resolved) return undefined;
  const billable = billableOf(usage);
  if (billable.images === 0 && billable.videoSeconds === 0) return { usd: costOfUsage(resolved.price, billable), billedPrice: resolved.json };
  const details = media ?? NO_MEDIA;
  const flat: PriceConfig = {
    ...resolved.price,
    per_image: perImage(resolved.price, details.imageSize, details.imageQuality),
    per_video_second: perVideoSecond(resolved.price, details.videoResolution),
  };
  delete flat.per_image_by_size;
  delete flat.per_video_second_by_resolution;
  return { usd: costOfUsage(flat, billable), billedPrice: JSON.stringify(flat) };
}

export function billableOf(usage: Usage): BillableUsage {
  return {
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    reasoningTokens: usage.reasoningTokens,
    cachedTokens: usage.cachedTokens,
    cacheWrite5mTokens: usage.cacheWrite5mTokens,
    cacheWrite1hTokens: usage.cacheWrite1hTokens,
    imageInputTokens: usage.imageInputTokens,
    imageOutputTokens: usage.imageOutputTokens,
    images: usage.images ?? 0,
    videoSeconds: usage.videoSeconds ?? 0,
    searches: usage.searches,
  };
}
