import type { PriceConfig } from '../config/schema.js';
import type { EmbeddingTraits, ModelKind } from '../contracts/endpoint-family.js';

/**
 * The built-in price sheet (issue 21): list prices in USD of the models behind the default
 * catalog and of common upstream models, keyed by the vendor's own model name. Data only; the
 * rules that read it are in usage/cost-lines.ts and catalog/price-book.ts. Standard (not batch,
 * not priority) tier. Every vendor names its public page and the day it was read; an operator's
 * `prices` (file, admin API, console) replace a model's entry, a channel's `prices` win over both.
 *
 * A model whose vendor publishes no price in USD is priced like a named sibling (`basis`), so a
 * fresh gateway never shows $0; set your own price for it.
 */
export interface SheetModel {
  readonly kind: Exclude<ModelKind, 'asset'>;
  readonly price: PriceConfig;
  /** Where the figure comes from when it is not the vendor page's own row for this model. */
  readonly basis?: string;
  /** Embedding models: vector length, input limit, whether `dimensions` may shorten it. */
  readonly embedding?: EmbeddingTraits;
}

export interface SheetVendor {
  /** The neutral vendor word (`owned_by` of these models) and the provider it belongs to. */
  readonly vendor: string;
  readonly source: string;
  /** The day the page was read (YYYY-MM-DD). */
  readonly checked: string;
  readonly models: Readonly<Record<string, SheetModel>>;
}

const CHECKED = '2026-11-24';

/** Claude: 5-minute cache writes 1.25x input, 1-hour writes 2x, cache reads 0.1x. */
const claude = (input: number, output: number, longContext = false): SheetModel => ({
  kind: 'chat',
  price: {
    prompt_per_1m: input,
    cache_write_5m_per_1m: input * 1.25,
    cache_write_1h_per_1m: input * 2,
    cached_prompt_per_1m: input / 10,
    completion_per_1m: output,
    // Sonnet 4 and 4.5 with the 1M context window: above 200K input tokens the whole request is billed at 2x input, 1.5x output.
    ...(longContext
      ? { long_context: [{ above_input_tokens: 200_000, prompt_per_1m: input * 2, cache_write_5m_per_1m: input * 2.5, cache_write_1h_per_1m: input * 4, cached_prompt_per_1m: input / 5, completion_per_1m: output * 1.5 }] }
      : {}),
  },
});

const tokens = (kind: SheetModel['kind'], prompt: number, cached: number, completion: number, extra: PriceConfig = {}, basis?: string): SheetModel => ({
  kind,
  price: { prompt_per_1m: prompt, cached_prompt_per_1m: cached, completion_per_1m: completion, ...extra },
  ...(basis ? { basis } : {}),
});

/** An embedding model: input tokens only. */
const embedding = (prompt: number, traits: EmbeddingTraits, basis?: string): SheetModel => ({
  kind: 'embedding',
  price: { prompt_per_1m: prompt },
  embedding: traits,
  ...(basis ? { basis } : {}),
});

/** BytePlus ModelArk's Seed prices: one step at 128K input tokens, cache hits flat. */
const seed = (input: number, cached: number, output: number, above128k: [number, number], basis?: string): SheetModel =>
  tokens('reasoning', input, cached, output, { long_context: [{ above_input_tokens: 128_000, prompt_per_1m: above128k[0], completion_per_1m: above128k[1] }] }, basis);

export const PRICE_SHEET: readonly SheetVendor[] = [
  {
    vendor: 'openai',
    source: 'https://platform.openai.com/docs/pricing',
    checked: CHECKED,
    models: {
      'gpt-5': tokens('reasoning', 1.25, 0.125, 10),
      'gpt-5-mini': tokens('reasoning', 0.25, 0.025, 2),
      'gpt-5-nano': tokens('reasoning', 0.05, 0.005, 0.4),
      'gpt-4.1': tokens('chat', 2, 0.5, 8),
      'gpt-4.1-mini': tokens('chat', 0.4, 0.1, 1.6),
      'gpt-4.1-nano': tokens('chat', 0.1, 0.025, 0.4),
      'gpt-4o': tokens('chat', 2.5, 1.25, 10),
      'gpt-4o-mini': tokens('chat', 0.15, 0.075, 0.6),
      o3: tokens('reasoning', 2, 0.5, 8),
      'o4-mini': tokens('reasoning', 1.1, 0.275, 4.4),
      // Billed by tokens: text input, image input, image output.
      'gpt-image-1': tokens('image', 5, 1.25, 40, { image_prompt_per_1m: 10, image_completion_per_1m: 40 }),
      'dall-e-3': {
        kind: 'image',
        price: { per_image_by_size: { '1024x1024': { default: 0.04, standard: 0.04, hd: 0.08 }, '1024x1792': { default: 0.08, standard: 0.08, hd: 0.12 }, '1792x1024': { default: 0.08, standard: 0.08, hd: 0.12 } } },
      },
      // 8,192 tokens per input; only the text-embedding-3 models take `dimensions` (protocols/embeddings.md).
      'text-embedding-3-small': embedding(0.02, { dimensions: 1536, maxInputTokens: 8192, canShorten: true }),
      'text-embedding-3-large': embedding(0.13, { dimensions: 3072, maxInputTokens: 8192, canShorten: true }),
      'text-embedding-ada-002': embedding(0.1, { dimensions: 1536, maxInputTokens: 8192, canShorten: false }),
    },
  },
  {
    vendor: 'anthropic',
    source: 'https://platform.claude.com/docs/en/about-claude/pricing',
    checked: CHECKED,
    models: {
      'claude-opus-4-5-20251101': claude(5, 25),
      'claude-opus-4-1-20250805': claude(15, 75),
      'claude-opus-4-20250514': claude(15, 75),
      'claude-sonnet-4-5-20250929': claude(3, 15, true),
      'claude-sonnet-4-20250514': claude(3, 15, true),
      'claude-haiku-4-5-20251001': claude(1, 5),
      'claude-3-5-haiku-20241022': claude(0.8, 4),
    },
  },
  {
    vendor: 'gemini',
    source: 'https://ai.google.dev/gemini-api/docs/pricing',
    checked: CHECKED,
    // Thinking tokens are billed as output (the page's "output price, including thinking tokens").
    models: {
      'gemini-3-pro-preview': tokens('reasoning', 2, 0.2, 12, { long_context: [{ above_input_tokens: 200_000, prompt_per_1m: 4, cached_prompt_per_1m: 0.4, completion_per_1m: 18 }] }),
      'gemini-2.5-pro': tokens('reasoning', 1.25, 0.125, 10, { long_context: [{ above_input_tokens: 200_000, prompt_per_1m: 2.5, cached_prompt_per_1m: 0.25, completion_per_1m: 15 }] }),
      'gemini-2.5-flash': tokens('reasoning', 0.3, 0.03, 2.5),
      'gemini-2.5-flash-lite': tokens('chat', 0.1, 0.01, 0.4),
      // Output images are tokens: 1290 per image at $30/M ($0.039 an image).
      'gemini-2.5-flash-image': tokens('image', 0.3, 0.03, 2.5, { image_completion_per_1m: 30 }),
      // 1120 tokens for a 1K image at $60/M ($0.067), 1680 for 2K, 2520 for 4K.
      'gemini-3.1-flash-image': tokens('image', 0.5, 0.05, 3, { image_completion_per_1m: 60 }),
      'gemini-3.1-flash-image-preview': tokens('image', 0.5, 0.05, 3, { image_completion_per_1m: 60 }),
      // 2,048 input tokens; `outputDimensionality` (our `dimensions`) truncates the 3,072-d vector.
      'gemini-embedding-001': embedding(0.15, { dimensions: 3072, maxInputTokens: 2048, canShorten: true }),
    },
  },
  {
    vendor: 'volcengine-ark',
    source: 'https://docs.byteplus.com/en/docs/ModelArk/1099320 (BytePlus ModelArk, USD)',
    checked: CHECKED,
    models: {
      'doubao-seed-1-8-251228': seed(0.25, 0.05, 2, [0.5, 4]),
      'doubao-seed-1-6-251015': seed(0.25, 0.05, 2, [0.5, 4]),
      'doubao-seed-1-6-flash-250828': seed(0.075, 0.015, 0.3, [0.1, 0.8]),
      'doubao-seed-1-6-vision-250815': seed(0.25, 0.05, 2, [0.5, 4], 'no USD list price found: priced like doubao-seed-1-6'),
      'doubao-seed-1-6-lite-251015': seed(0.075, 0.015, 0.3, [0.1, 0.8], 'no USD list price found: priced like doubao-seed-1-6-flash'),
      'doubao-seed-2-0-pro-260215': seed(0.45, 0.09, 2.25, [1.35, 6.76], "Volcengine's CNY list (3.2 / 0.64 / 16 yuan per 1M, 9.6 / 48 above 128K) at 7.1 CNY per USD"),
      'doubao-seed-2-0-code-260215': seed(0.45, 0.09, 2.25, [1.35, 6.76], 'no USD list price found: priced like doubao-seed-2-0-pro'),
      'doubao-seed-2-0-lite-260215': seed(0.25, 0.05, 2, [0.5, 4], 'no USD list price found: priced like doubao-seed-1-8'),
      'doubao-seed-2-0-mini-260215': seed(0.075, 0.015, 0.3, [0.1, 0.8], 'no USD list price found: priced like doubao-seed-1-6-flash'),
    },
  },
  {
    vendor: 'zhipu',
    source: 'https://docs.z.ai/guides/overview/pricing',
    checked: CHECKED,
    models: {
      'glm-4.7': tokens('reasoning', 0.6, 0.11, 2.2),
      'glm-4.6': tokens('reasoning', 0.6, 0.11, 2.2),
      'glm-4.5': tokens('reasoning', 0.6, 0.11, 2.2),
      'glm-4.5-air': tokens('reasoning', 0.2, 0.03, 1.1),
    },
  },
  {
    vendor: 'alibaba-dashscope',
    source: 'https://www.alibabacloud.com/help/en/model-studio/model-pricing (international)',
    checked: CHECKED,
    models: {
      'wan2.6-r2v': { kind: 'video', price: { per_video_second_by_resolution: { '720P': 0.1, '1080P': 0.15, default: 0.15 } } },
      'happyhorse-1.0-r2v': { kind: 'video', price: { per_video_second_by_resolution: { '720P': 0.1, '1080P': 0.15, default: 0.15 } }, basis: 'priced like wan2.6-r2v' },
    },
  },
  {
    vendor: 'cohere',
    source: 'https://cohere.com/pricing',
    checked: CHECKED,
    models: {
      // Sold per search (one query over up to 100 documents), not per token.
      'rerank-v3.5': { kind: 'rerank', price: { per_search: 0.002 }, basis: 'about $2 per 1,000 searches (usagepricing.com; not read on the vendor page)' },
    },
  },
  // Kling sells prepaid resource packages (units per task), not a USD price per second: its
  // models are in no sheet, so /videoalt costs nothing until `prices` names a per-second rate.
];
