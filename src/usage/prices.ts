import { findModel } from '../catalog/models.js';
import type { FileConfig, PriceConfig } from '../config/schema.js';

/** What a request or task used, in the units the price table charges. */
export interface BillableUsage {
  promptTokens: number;
  /** Includes reasoning tokens, as OpenAI counts them. */
  completionTokens: number;
  images: number;
  videoSeconds: number;
}

/** Cost in USD from the configured prices (config `prices`); unpriced models and units cost 0. */
export function costOf(prices: Readonly<Record<string, PriceConfig>> | undefined, model: string, usage: BillableUsage): number {
  const price = prices?.[model];
  if (!price) return 0;
  const cost =
    (usage.promptTokens * (price.prompt_per_1m ?? 0)) / 1_000_000 +
    (usage.completionTokens * (price.completion_per_1m ?? 0)) / 1_000_000 +
    usage.images * (price.per_image ?? 0) +
    usage.videoSeconds * (price.per_video_second ?? 0);
  // Float noise (0.1 + 0.2) would show up in sums; a billionth of a dollar is far below any price.
  return Math.round(cost * 1e9) / 1e9;
}

/**
 * Prices and tiers name public models exactly; a typo would silently price a model at 0 or leave
 * it unlimited, so unknown ids stop the boot instead.
 */
export function checkBillingConfig(file: FileConfig): void {
  for (const model of Object.keys(file.prices ?? {})) {
    if (!findModel(model)) throw new Error(`config: 'prices.${model}' is not a model of the catalog`);
  }
  for (const [tier, models] of Object.entries(file.tiers ?? {})) {
    for (const model of Object.keys(models)) {
      if (model !== 'default' && !findModel(model)) throw new Error(`config: 'tiers.${tier}.${model}' is not a model of the catalog (or 'default')`);
    }
  }
}
