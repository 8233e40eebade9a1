import type { PriceConfig } from '../config/schema.js';

/**
 * How a batch line ran (issue 46): in a vendor's own batch API (`native`, which vendors sell at
 * half price) or by the gateway itself through the sync endpoint (`self`, which the vendor bills
 * at list price).
 */
export type BatchMode = 'native' | 'self';

/** The share taken off where a price sets no `batch_discount`: OpenAI, Anthropic and Gemini all sell batches at 50%. */
export const NATIVE_BATCH_DISCOUNT = 0.5;

/** The share of the price a batch line does not pay: the price's `batch_discount`, else the mode's default. */
export function batchDiscountOf(price: PriceConfig, mode: BatchMode): number {
  return price.batch_discount ?? (mode === 'native' ? NATIVE_BATCH_DISCOUNT : 0);
}

/** `price` with every USD figure scaled by (1 − discount): what a batch line is billed at. */
export function batchPriceOf(price: PriceConfig, mode: BatchMode): PriceConfig {
  const discount = batchDiscountOf(price, mode);
  if (discount === 0) return price;
  return scaled(price, 1 - discount) as PriceConfig;
}

/** Thresholds are token counts, not money. */
const NOT_MONEY = new Set(['above_input_tokens', 'batch_discount']);

function scaled(value: unknown, factor: number): unknown {
  if (typeof value === 'number') return value * factor;
  if (Array.isArray(value)) return value.map((item) => scaled(item, factor));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, NOT_MONEY.has(name) ? item : scaled(item, factor)]));
  return value;
}
