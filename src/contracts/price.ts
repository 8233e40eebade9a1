import { Type, type Static } from 'typebox';

// The price of one model (issue 21): what the configuration's `prices`, a channel's `prices`, the
// admin API and each vendor's built-in price-sheet rows (providers/<vendor>/prices.ts) all hold.

const Usd = Type.Number({ minimum: 0, maximum: 1_000_000 });
/** Image sizes (`1024x1024`, Gemini's `1K`) or video resolutions (`720P`): names, or `default`. */
const SizeName = Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9*:._-]+$' });

/** Token prices that a long-context tier may raise (USD per million tokens). */
const tokenPrices = {
  /** Input tokens not read from or written to a prompt cache. */
  prompt_per_1m: Type.Optional(Usd),
  /** Input tokens read from the vendor's prompt cache; the input price when absent. */
  cached_prompt_per_1m: Type.Optional(Usd),
  /** Input tokens written to the prompt cache (Anthropic's 5-minute cache; OpenAI's cache writes); the input price when absent. */
  cache_write_5m_per_1m: Type.Optional(Usd),
  /** Input tokens written to Anthropic's 1-hour cache; the 5-minute write price when absent. */
  cache_write_1h_per_1m: Type.Optional(Usd),
  /** Output tokens, reasoning tokens included unless `reasoning_per_1m` prices them apart. */
  completion_per_1m: Type.Optional(Usd),
  /** Reasoning (thinking) tokens where a vendor bills them apart; the output price when absent. */
  reasoning_per_1m: Type.Optional(Usd),
  /** Image input tokens (GPT image models, Gemini); the input price when absent. */
  image_prompt_per_1m: Type.Optional(Usd),
  /** Image output tokens (GPT image models, Gemini image models); the output price when absent. */
  image_completion_per_1m: Type.Optional(Usd),
};

/** Above `above_input_tokens` input tokens (cache reads and writes included), the whole request is billed at these prices. */
export const LongContextTierSchema = Type.Object(
  { above_input_tokens: Type.Integer({ minimum: 1, maximum: 100_000_000 }), ...tokenPrices },
  { additionalProperties: false },
);

/** USD prices of one model; an absent field falls back as described on each, else costs nothing. */
export const PriceSchema = Type.Object(
  {
    ...tokenPrices,
    per_image: Type.Optional(Usd),
    /** Per image by size, then quality (`low`, `hd`…); `default` matches what is not listed. Wins over `per_image`. */
    per_image_by_size: Type.Optional(Type.Record(SizeName, Type.Record(SizeName, Usd), { maxProperties: 64 })),
    per_video_second: Type.Optional(Usd),
    /** Per rerank search (one query over its documents), where a vendor sells rerank that way (Cohere). */
    per_search: Type.Optional(Usd),
    /** Per second by resolution (`720P`, `1080P`); `default` matches what is not listed. Wins over `per_video_second`. */
    per_video_second_by_resolution: Type.Optional(Type.Record(SizeName, Usd, { maxProperties: 32 })),
    /** Higher prices for long prompts (Gemini and Claude above 200K, Seed above 128K): the highest tier passed applies. */
    long_context: Type.Optional(Type.Array(LongContextTierSchema, { maxItems: 8 })),
    /**
     * The share of every figure above a line of a batch does not pay (issue 46; 0.5: half price).
     * Absent: 0.5 for lines sent in a vendor's batch API, 0 (list price) for lines the gateway runs itself.
     */
    batch_discount: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);

export type PriceConfig = Static<typeof PriceSchema>;
export type LongContextTierConfig = Static<typeof LongContextTierSchema>;
