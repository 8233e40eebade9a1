import { embeddingPriced, tokenPriced, type SheetVendor } from '../price-rows.js';

/** Its rows of the built-in price sheet (providers/price-rows.ts says what they are). */
export const zhipuPrices: SheetVendor = {
  vendor: 'zhipu',
  source: 'https://docs.z.ai/guides/overview/pricing',
  checked: '2026-11-24',
  models: {
    'glm-4.7': tokenPriced('reasoning', 0.6, 0.11, 2.2),
    'glm-4.6': tokenPriced('reasoning', 0.6, 0.11, 2.2),
    'glm-4.5': tokenPriced('reasoning', 0.6, 0.11, 2.2),
    // `dimensions` 256/512/1024/2048; ¥0.5 per 1M tokens on bigmodel.cn.
    'embedding-3': embeddingPriced(0.07, { dimensions: 2048, maxInputTokens: 3072, canShorten: true }, 'CNY 0.5 per 1M converted (not read in USD on the vendor page)'),
    'glm-4.5-air': tokenPriced('reasoning', 0.2, 0.03, 1.1),
  },
};
