import { embeddingPriced, tokenPriced, type SheetVendor } from '../price-rows.js';

/** Its rows of the built-in price sheet (providers/price-rows.ts says what they are). */
export const openaiPrices: SheetVendor = {
  vendor: 'openai',
  source: 'https://platform.openai.com/docs/pricing',
  checked: '2026-11-24',
  models: {
    'gpt-5': tokenPriced('reasoning', 1.25, 0.125, 10),
    'gpt-5-mini': tokenPriced('reasoning', 0.25, 0.025, 2),
    'gpt-5-nano': tokenPriced('reasoning', 0.05, 0.005, 0.4),
    'gpt-4.1': tokenPriced('chat', 2, 0.5, 8),
    'gpt-4.1-mini': tokenPriced('chat', 0.4, 0.1, 1.6),
    'gpt-4.1-nano': tokenPriced('chat', 0.1, 0.025, 0.4),
    'gpt-4o': tokenPriced('chat', 2.5, 1.25, 10),
    'gpt-4o-mini': tokenPriced('chat', 0.15, 0.075, 0.6),
    o3: tokenPriced('reasoning', 2, 0.5, 8),
    'o4-mini': tokenPriced('reasoning', 1.1, 0.275, 4.4),
    // Billed by tokens: text input, image input, image output.
    'gpt-image-1': tokenPriced('image', 5, 1.25, 40, { image_prompt_per_1m: 10, image_completion_per_1m: 40 }),
    'dall-e-3': {
      kind: 'image',
      price: { per_image_by_size: { '1024x1024': { default: 0.04, standard: 0.04, hd: 0.08 }, '1024x1792': { default: 0.08, standard: 0.08, hd: 0.12 }, '1792x1024': { default: 0.08, standard: 0.08, hd: 0.12 } } },
    },
    // 8,192 tokens per input; only the text-embedding-3 models take `dimensions` (protocols/embeddings.md).
    'text-embedding-3-small': embeddingPriced(0.02, { dimensions: 1536, maxInputTokens: 8192, canShorten: true }),
    'text-embedding-3-large': embeddingPriced(0.13, { dimensions: 3072, maxInputTokens: 8192, canShorten: true }),
    'text-embedding-ada-002': embeddingPriced(0.1, { dimensions: 1536, maxInputTokens: 8192, canShorten: false }),
  },
};

