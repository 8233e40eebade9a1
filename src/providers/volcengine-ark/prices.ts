import { embeddingPriced, tokenPriced, type SheetModel, type SheetVendor } from '../price-rows.js';

/** BytePlus ModelArk's Seed prices: one step at 128K input tokens, cache hits flat. */
const seed = (input: number, cached: number, output: number, above128k: [number, number], basis?: string): SheetModel =>
  tokenPriced('reasoning', input, cached, output, { long_context: [{ above_input_tokens: 128_000, prompt_per_1m: above128k[0], completion_per_1m: above128k[1] }] }, basis);

/** Its rows of the built-in price sheet (providers/price-rows.ts says what they are). */
export const volcengineArkPrices: SheetVendor = {
  vendor: 'volcengine-ark',
  source: 'https://docs.byteplus.com/en/docs/ModelArk/1099320 (BytePlus ModelArk, USD)',
  checked: '2026-11-24',
  models: {
    'doubao-embedding-text-240715': embeddingPriced(0.07, { dimensions: 2560, maxInputTokens: 4096, canShorten: true }, 'CNY 0.5 per 1M on Volcengine, converted (not read in USD)'),
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
};
