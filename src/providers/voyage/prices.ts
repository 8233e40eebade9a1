import { embeddingPriced, type SheetVendor } from '../price-rows.js';

/** Its rows of the built-in price sheet (providers/price-rows.ts says what they are). */
export const voyagePrices: SheetVendor = {
  vendor: 'voyage',
  source: 'https://docs.voyageai.com/docs/pricing',
  checked: '2026-11-27',
  // The first 200M tokens a month are free on the vendor's side; the sheet lists the paid rate.
  models: {
    'voyage-3.5': embeddingPriced(0.06, { dimensions: 1024, maxInputTokens: 32_000, canShorten: true }),
    'voyage-3.5-lite': embeddingPriced(0.02, { dimensions: 1024, maxInputTokens: 32_000, canShorten: true }),
    'voyage-3-large': embeddingPriced(0.18, { dimensions: 1024, maxInputTokens: 32_000, canShorten: true }),
    // Rerank is billed by tokens (query tokens × documents + document tokens).
    'rerank-2.5': { kind: 'rerank', price: { prompt_per_1m: 0.05 } },
  },
};
