import { embeddingPriced, type SheetVendor } from '../price-rows.js';

/** Its rows of the built-in price sheet (providers/price-rows.ts says what they are). */
export const coherePrices: SheetVendor = {
  vendor: 'cohere',
  source: 'https://cohere.com/pricing',
  checked: '2026-11-27',
  models: {
    // Text input; embed-v4 shortens to 256/512/1024/1536 (`output_dimension`), 128K-token context.
    'embed-v4.0': embeddingPriced(0.12, { dimensions: 1536, maxInputTokens: 128_000, canShorten: true }, 'text input, as listed by the Vercel AI Gateway (not read on the vendor page)'),
    'embed-english-v3.0': embeddingPriced(0.1, { dimensions: 1024, maxInputTokens: 512, canShorten: false }),
    'embed-multilingual-v3.0': embeddingPriced(0.1, { dimensions: 1024, maxInputTokens: 512, canShorten: false }),
    // Sold per search (one query over up to 100 documents), not per token.
    'rerank-v3.5': { kind: 'rerank', price: { per_search: 0.002 }, basis: 'about $2 per 1,000 searches (not read on the vendor page)' },
  },
};
