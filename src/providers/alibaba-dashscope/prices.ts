import { embeddingPriced, type SheetVendor } from '../price-rows.js';

/** Its rows of the built-in price sheet (providers/price-rows.ts says what they are). */
export const alibabaDashScopePrices: SheetVendor = {
  vendor: 'alibaba-dashscope',
  source: 'https://www.alibabacloud.com/help/en/model-studio/model-pricing (international)',
  checked: '2026-11-24',
  models: {
    'wan2.6-r2v': { kind: 'video', price: { per_video_second_by_resolution: { '720P': 0.1, '1080P': 0.15, default: 0.15 } } },
    // Embeddings (international): `dimensions` picks 1024/768/512/256/128/64 (v4 up to 2048); 8,192 tokens an input.
    'text-embedding-v3': embeddingPriced(0.07, { dimensions: 1024, maxInputTokens: 8192, canShorten: true }),
    'text-embedding-v4': embeddingPriced(0.07, { dimensions: 2048, maxInputTokens: 8192, canShorten: true }),
    'happyhorse-1.0-r2v': { kind: 'video', price: { per_video_second_by_resolution: { '720P': 0.1, '1080P': 0.15, default: 0.15 } }, basis: 'priced like wan2.6-r2v' },
  },
};
