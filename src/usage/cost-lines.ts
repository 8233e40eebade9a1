import type { LongContextTierConfig, PriceConfig } from '../config/schema.js';

/** What a request or task used, in the units prices charge (issue 21). */
export interface BillableUsage {
  /** Every input token, cache reads and writes and image tokens included (OpenAI's prompt_tokens). */
  promptTokens: number;
  /** Every output token, reasoning and image tokens included (OpenAI's completion_tokens). */
  completionTokens: number;
  /** Of the output: reasoning tokens. */
  reasoningTokens?: number;
  /** Of the input: read from the vendor's prompt cache. */
  cachedTokens?: number;
  /** Of the input: written to the prompt cache (Anthropic's 5-minute cache, OpenAI's cache writes). */
  cacheWrite5mTokens?: number;
  /** Of the input: written to Anthropic's 1-hour cache. */
  cacheWrite1hTokens?: number;
  /** Of the input: image tokens. */
  imageInputTokens?: number;
  /** Of the output: image tokens. */
  imageOutputTokens?: number;
  images: number;
  videoSeconds: number;
  /** Rerank searches. */
  searches?: number | undefined;
  /** The request's image size and quality, and video resolution, for prices by size. */
  imageSize?: string | undefined;
  imageQuality?: string | undefined;
  videoResolution?: string | undefined;
}

export type CostDimension =
  | 'input' | 'cached_input' | 'cache_write_5m' | 'cache_write_1h' | 'image_input'
  | 'output' | 'reasoning' | 'image_output' | 'images' | 'video_seconds' | 'searches';

/** One line of a bill: how many, at what unit price (USD per 1M tokens; per image; per second), for how much. */
export interface CostLine {
  dimension: CostDimension;
  quantity: number;
  unit_usd: number;
  usd: number;
}

export interface Priced {
  usd: number;
  lines: CostLine[];
}

const PER_TOKEN = 1 / 1_000_000;

/**
 * The vendors' rule, one formula for all: input tokens are split into cache reads, cache writes
 * (5 minutes, 1 hour), image tokens and the rest, each at its own price; output into reasoning,
 * image tokens and the rest. A long-context tier, when the input passes its threshold, prices the
 * whole request (Gemini, Claude and Seed bill long prompts this way, not only the tokens above it).
 * Unpriced dimensions fall back to the input or output price; nothing is billed twice. The total
 * is rounded to a billionth of a dollar (float noise such as 0.1 + 0.2 would otherwise show in sums).
 */
export function priceUsage(price: PriceConfig, usage: BillableUsage): Priced {
  const lines: CostLine[] = [];
  return { usd: billUsage(price, usage, lines), lines };
}

/** The same bill's total without its lines: what the request path needs (no allocation per line). */
export function costOfUsage(price: PriceConfig, usage: BillableUsage): number {
  return billUsage(price, usage, undefined);
}

function billUsage(price: PriceConfig, usage: BillableUsage, lines: CostLine[] | undefined): number {
  const tier = longContextTier(price.long_context, usage.promptTokens);
  const p = tier ? { ...price, ...tier } : price;
  const input = p.prompt_per_1m ?? 0;
  const output = p.completion_per_1m ?? 0;
  const write5m = p.cache_write_5m_per_1m ?? input;

  const cached = clamp(usage.cachedTokens, usage.promptTokens);
  const written5m = clamp(usage.cacheWrite5mTokens, usage.promptTokens - cached);
  const written1h = clamp(usage.cacheWrite1hTokens, usage.promptTokens - cached - written5m);
  const imageIn = clamp(usage.imageInputTokens, usage.promptTokens - cached - written5m - written1h);
  const reasoning = clamp(usage.reasoningTokens, usage.completionTokens);
  const imageOut = clamp(usage.imageOutputTokens, usage.completionTokens - reasoning);

  let usd = 0;
  const line = (dimension: CostDimension, quantity: number, unit: number, perUnit: number) => {
    if (quantity <= 0) return;
    const cost = quantity * unit * perUnit;
    usd += cost;
    lines?.push({ dimension, quantity, unit_usd: unit, usd: cost });
  };
  line('input', usage.promptTokens - cached - written5m - written1h - imageIn, input, PER_TOKEN);
  line('cached_input', cached, p.cached_prompt_per_1m ?? input, PER_TOKEN);
  line('cache_write_5m', written5m, write5m, PER_TOKEN);
  line('cache_write_1h', written1h, p.cache_write_1h_per_1m ?? write5m, PER_TOKEN);
  line('image_input', imageIn, p.image_prompt_per_1m ?? input, PER_TOKEN);
  line('output', usage.completionTokens - reasoning - imageOut, output, PER_TOKEN);
  line('reasoning', reasoning, p.reasoning_per_1m ?? output, PER_TOKEN);
  line('image_output', imageOut, p.image_completion_per_1m ?? output, PER_TOKEN);
  if (usage.images > 0) line('images', usage.images, perImage(price, usage.imageSize, usage.imageQuality), 1);
  if (usage.videoSeconds > 0) line('video_seconds', usage.videoSeconds, perVideoSecond(price, usage.videoResolution), 1);
  if (usage.searches) line('searches', usage.searches, price.per_search ?? 0, 1);
  return roundUsd(usd);
}

export const roundUsd = (usd: number): number => Math.round(usd * 1e9) / 1e9;

const clamp = (value: number | undefined, most: number): number => Math.max(0, Math.min(value ?? 0, most));

/** The tier with the highest threshold the input passes, if any. */
function longContextTier(tiers: readonly LongContextTierConfig[] | undefined, promptTokens: number): Omit<LongContextTierConfig, 'above_input_tokens'> | undefined {
  let found: LongContextTierConfig | undefined;
  for (const tier of tiers ?? []) {
    if (promptTokens > tier.above_input_tokens && (!found || tier.above_input_tokens > found.above_input_tokens)) found = tier;
  }
  if (!found) return undefined;
  const { above_input_tokens: _threshold, ...prices } = found;
  return prices;
}

/** By size then quality, `default` standing in for what is not listed; else the flat `per_image`. */
export function perImage(price: PriceConfig, size: string | undefined, quality: string | undefined): number {
  const bySize = price.per_image_by_size;
  if (bySize) {
    const row = (size !== undefined ? bySize[size] : undefined) ?? bySize.default;
    const each = row && ((quality !== undefined ? row[quality] : undefined) ?? row.default);
    if (each !== undefined) return each;
  }
  return price.per_image ?? 0;
}

/** By resolution (`720P`, `720p` alike), `default` standing in for what is not listed; else the flat `per_video_second`. */
export function perVideoSecond(price: PriceConfig, resolution: string | undefined): number {
  const byResolution = price.per_video_second_by_resolution;
  if (byResolution) {
    const key = resolution === undefined ? undefined : Object.keys(byResolution).find((name) => name.toLowerCase() === resolution.toLowerCase());
    const each = (key !== undefined ? byResolution[key] : undefined) ?? byResolution.default;
    if (each !== undefined) return each;
  }
  return price.per_video_second ?? 0;
}
