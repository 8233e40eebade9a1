import { tokenPriced, type SheetVendor } from '../price-rows.js';

/** Its rows of the built-in price sheet (providers/price-rows.ts says what they are). */
export const zhipuPrices: SheetVendor = {
  vendor: 'zhipu',
  source: 'https://docs.z.ai/guides/overview/pricing',
  checked: '2026-11-24',
  models: {
    'glm-4.7': tokenPriced('reasoning', 0.6, 0.11, 2.2),
    'glm-4.6': tokenPriced('reasoning', 0.6, 0.11, 2.2),
    'glm-4.5': tokenPriced('reasoning', 0.6, 0.11, 2.2),
    'glm-4.5-air': tokenPriced('reasoning', 0.2, 0.03, 1.1),
  },
};
