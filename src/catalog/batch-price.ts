import type { PriceConfig } from '../config/schema.js';

/**
 * How a batch line ran (issue 46): in a vendor's own batch API (`native`, which vendors sell at
 * half price) or by the gateway itself through the sync endpoint (`self`, which the vendor bills
 * at list price).
 */
export type BatchMode = 'native' | 'self';

/**
 * The share of the price a batch line does not pay: the price's own `batch_discount` (an operator's
 * or a channel's), else for a line sent in a vendor's batch API that vendor's declared discount
 * (its batch adapter's `discount`: 0.5 for OpenAI, Azure, Anthropic and Gemini), else none.
 */
export function batchDiscountOf(price: PriceConfig, mode: BatchMode, vendorDiscount: number | undefined): number {
  return price.batch_discount ?? (mode === 'native' ? (vendorDiscount ?? 0) : 0);
}

/** `price` with every USD figure scaled by (1 − discount): what a batch line is billed at. */
export function batchPriceOf(price: PriceConfig, discount: number): PriceConfig {
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
