import type { SheetModel, SheetVendor } from '../price-rows.js';
import { embeddingPriced, tokenPriced } from '../price-rows.js';

/** Claude on Bedrock: the Anthropic list prices; 5-minute cache writes 1.25x input, reads 0.1x. */
const claude = (input: number, output: number): SheetModel => ({
  kind: 'chat',
  price: { prompt_per_1m: input, cache_write_5m_per_1m: input * 1.25, cached_prompt_per_1m: input / 10, completion_per_1m: output },
});

/**
 * A Claude model under its in-region id and its inference profiles. From Sonnet 4.5, Haiku 4.5 and
 * Opus 4.5 on, the `global.` profile is the list price and in-region and geographic (`us.`, `eu.`,
 * `apac.`) endpoints cost 10% more; older models cost the same everywhere.
 */
function claudeIds(id: string, input: number, output: number, regionalPremium: boolean): Record<string, SheetModel> {
  const regional = regionalPremium ? claude(input * 1.1, output * 1.1) : claude(input, output);
  const rows: Record<string, SheetModel> = { [`anthropic.${id}`]: regional };
  for (const geo of ['us', 'eu', 'apac']) rows[`${geo}.anthropic.${id}`] = regional;
  rows[`global.anthropic.${id}`] = claude(input, output);
  return rows;
}

/** Its rows of the built-in price sheet: on-demand prices in us-east-1, by Bedrock model id. */
export const bedrockPrices: SheetVendor = {
  vendor: 'bedrock',
  source: 'https://aws.amazon.com/bedrock/pricing/',
  checked: '2026-11-27',
  models: {
    ...claudeIds('claude-sonnet-4-5-20250929-v1:0', 3, 15, true),
    ...claudeIds('claude-haiku-4-5-20251001-v1:0', 1, 5, true),
    ...claudeIds('claude-opus-4-5-20251101-v1:0', 5, 25, true),
    ...claudeIds('claude-sonnet-4-20250514-v1:0', 3, 15, false),
    ...claudeIds('claude-opus-4-1-20250805-v1:0', 15, 75, false),
    ...claudeIds('claude-3-5-haiku-20241022-v1:0', 0.8, 4, false),
    'amazon.nova-pro-v1:0': tokenPriced('chat', 0.8, 0.2, 3.2),
    'us.amazon.nova-pro-v1:0': tokenPriced('chat', 0.8, 0.2, 3.2),
    'amazon.nova-lite-v1:0': tokenPriced('chat', 0.06, 0.015, 0.24),
    'us.amazon.nova-lite-v1:0': tokenPriced('chat', 0.06, 0.015, 0.24),
    'amazon.nova-micro-v1:0': tokenPriced('chat', 0.035, 0.00875, 0.14),
    'us.amazon.nova-micro-v1:0': tokenPriced('chat', 0.035, 0.00875, 0.14),
    'meta.llama3-3-70b-instruct-v1:0': tokenPriced('chat', 0.72, 0.72, 0.72),
    'us.meta.llama3-3-70b-instruct-v1:0': tokenPriced('chat', 0.72, 0.72, 0.72),
    'mistral.mistral-large-2402-v1:0': tokenPriced('chat', 4, 4, 12),
    // Embeddings through InvokeModel (from-embeddings.ts): input tokens only.
    'amazon.titan-embed-text-v2:0': embeddingPriced(0.02, { dimensions: 1024, maxInputTokens: 8192, canShorten: true }),
    'amazon.titan-embed-text-v1': embeddingPriced(0.1, { dimensions: 1536, maxInputTokens: 8192, canShorten: false }),
    'cohere.embed-english-v3': embeddingPriced(0.1, { dimensions: 1024, maxInputTokens: 512, canShorten: false }),
    'cohere.embed-multilingual-v3': embeddingPriced(0.1, { dimensions: 1024, maxInputTokens: 512, canShorten: false }),
    'cohere.embed-v4:0': embeddingPriced(0.12, { dimensions: 1536, maxInputTokens: 128_000, canShorten: true }),
    'us.cohere.embed-v4:0': embeddingPriced(0.12, { dimensions: 1536, maxInputTokens: 128_000, canShorten: true }),
    'eu.cohere.embed-v4:0': embeddingPriced(0.12, { dimensions: 1536, maxInputTokens: 128_000, canShorten: true }),
  },
};
