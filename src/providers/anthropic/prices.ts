import type { SheetModel, SheetVendor } from '../price-rows.js';

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

/** Its rows of the built-in price sheet (providers/price-rows.ts says what they are). */
export const anthropicPrices: SheetVendor = {
  vendor: 'anthropic',
  source: 'https://platform.claude.com/docs/en/about-claude/pricing',
  checked: '2026-11-24',
  models: {
    'claude-opus-4-5-20251101': claude(5, 25),
    'claude-opus-4-1-20250805': claude(15, 75),
    'claude-opus-4-20250514': claude(15, 75),
    'claude-sonnet-4-5-20250929': claude(3, 15, true),
    'claude-sonnet-4-20250514': claude(3, 15, true),
    'claude-haiku-4-5-20251001': claude(1, 5),
    'claude-3-5-haiku-20241022': claude(0.8, 4),
  },
};
