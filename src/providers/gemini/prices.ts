import { embeddingPriced, tokenPriced, type SheetVendor } from '../price-rows.js';

/** Its rows of the built-in price sheet (providers/price-rows.ts says what they are). */
export const geminiPrices: SheetVendor = {
  vendor: 'gemini',
  source: 'https://ai.google.dev/gemini-api/docs/pricing',
  checked: '2026-11-24',
  // Thinking tokens are billed as output (the page's "output price, including thinking tokens").
  models: {
    'gemini-3-pro-preview': tokenPriced('reasoning', 2, 0.2, 12, { long_context: [{ above_input_tokens: 200_000, prompt_per_1m: 4, cached_prompt_per_1m: 0.4, completion_per_1m: 18 }] }),
    'gemini-2.5-pro': tokenPriced('reasoning', 1.25, 0.125, 10, { long_context: [{ above_input_tokens: 200_000, prompt_per_1m: 2.5, cached_prompt_per_1m: 0.25, completion_per_1m: 15 }] }),
    'gemini-2.5-flash': tokenPriced('reasoning', 0.3, 0.03, 2.5),
    'gemini-2.5-flash-lite': tokenPriced('chat', 0.1, 0.01, 0.4),
    // Output images are tokens: 1290 per image at $30/M ($0.039 an image).
    'gemini-2.5-flash-image': tokenPriced('image', 0.3, 0.03, 2.5, { image_completion_per_1m: 30 }),
    // 1120 tokens for a 1K image at $60/M ($0.067), 1680 for 2K, 2520 for 4K.
    'gemini-3.1-flash-image': tokenPriced('image', 0.5, 0.05, 3, { image_completion_per_1m: 60 }),
    'gemini-3.1-flash-image-preview': tokenPriced('image', 0.5, 0.05, 3, { image_completion_per_1m: 60 }),
    // 2,048 input tokens; `outputDimensionality` (our `dimensions`) truncates the 3,072-d vector.
    'gemini-embedding-001': embeddingPriced(0.15, { dimensions: 3072, maxInputTokens: 2048, canShorten: true }),
  },
};
