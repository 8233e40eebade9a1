import type { Price } from '../../lib/types';

/** The token prices a form edits (USD per 1M tokens), in the order shown. */
export const TOKEN_FIELDS = [
  ['prompt_per_1m', 'Input'],
  ['cached_prompt_per_1m', 'Cached input'],
  ['cache_write_5m_per_1m', 'Cache write (5 min)'],
  ['cache_write_1h_per_1m', 'Cache write (1 h)'],
  ['completion_per_1m', 'Output'],
  ['reasoning_per_1m', 'Reasoning'],
  ['image_prompt_per_1m', 'Image input'],
  ['image_completion_per_1m', 'Image output'],
] as const;

export type TokenField = (typeof TOKEN_FIELDS)[number][0];

/** The form's text of a price: one string per field, '' for unset. */
export interface PriceForm {
  tokens: Record<TokenField, string>;
  perImage: string;
  imageSizes: string;
  perVideoSecond: string;
  videoResolutions: string;
  longThreshold: string;
  longInput: string;
  longCached: string;
  longOutput: string;
}

const text = (value: number | undefined) => (value === undefined ? '' : String(value));

export function priceForm(price: Price | null | undefined): PriceForm {
  const tier = price?.long_context?.[0];
  return {
    tokens: Object.fromEntries(TOKEN_FIELDS.map(([field]) => [field, text(price?.[field])])) as Record<TokenField, string>,
    perImage: text(price?.per_image),
    imageSizes: Object.entries(price?.per_image_by_size ?? {}).flatMap(([size, row]) => Object.entries(row).map(([quality, usd]) => `${size} ${quality} = ${usd}`)).join('\n'),
    perVideoSecond: text(price?.per_video_second),
    videoResolutions: Object.entries(price?.per_video_second_by_resolution ?? {}).map(([resolution, usd]) => `${resolution} = ${usd}`).join('\n'),
    longThreshold: text(tier?.above_input_tokens),
    longInput: text(tier?.prompt_per_1m),
    longCached: text(tier?.cached_prompt_per_1m),
    longOutput: text(tier?.completion_per_1m),
  };
}

const number = (value: string, label: string): number | undefined => {
  if (value.trim() === '') return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${label} must be a number of 0 or more.`);
  return parsed;
};

/**
 * The API's price from the form; throws a message naming the field that is wrong. A long-context
 * tier keeps the prices of `base`'s tier the form does not show (its cache-write prices).
 */
export function priceOf(form: PriceForm, base?: Price | null): Price {
  const price: Price = {};
  for (const [field, label] of TOKEN_FIELDS) {
    const value = number(form.tokens[field], label);
    if (value !== undefined) price[field] = value;
  }
  const perImage = number(form.perImage, 'Per image');
  if (perImage !== undefined) price.per_image = perImage;
  const sizes: Record<string, Record<string, number>> = {};
  for (const line of form.imageSizes.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const match = /^(\S+)(?:\s+(\S+))?\s*=\s*(\S+)$/.exec(line);
    if (!match) throw new Error(`Per image by size: write “1024x1024 high = 0.17” (quality optional), not “${line}”.`);
    (sizes[match[1]!] ??= {})[match[2] ?? 'default'] = number(match[3]!, `Per image ${match[1]}`)!;
  }
  if (Object.keys(sizes).length > 0) price.per_image_by_size = sizes;
  const perSecond = number(form.perVideoSecond, 'Per video second');
  if (perSecond !== undefined) price.per_video_second = perSecond;
  const resolutions: Record<string, number> = {};
  for (const line of form.videoResolutions.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const match = /^(\S+)\s*=\s*(\S+)$/.exec(line);
    if (!match) throw new Error(`Per video second by resolution: write “720P = 0.1”, not “${line}”.`);
    resolutions[match[1]!] = number(match[2]!, `Per second at ${match[1]}`)!;
  }
  if (Object.keys(resolutions).length > 0) price.per_video_second_by_resolution = resolutions;
  const threshold = number(form.longThreshold, 'Long-context threshold');
  if (threshold !== undefined) {
    const { prompt_per_1m: _input, cached_prompt_per_1m: _cached, completion_per_1m: _output, ...kept } = base?.long_context?.[0] ?? { above_input_tokens: 0 };
    const tier: NonNullable<Price['long_context']>[number] = { ...kept, above_input_tokens: Math.round(threshold) };
    const input = number(form.longInput, 'Long-context input');
    const cached = number(form.longCached, 'Long-context cached input');
    const output = number(form.longOutput, 'Long-context output');
    if (input !== undefined) tier.prompt_per_1m = input;
    if (cached !== undefined) tier.cached_prompt_per_1m = cached;
    if (output !== undefined) tier.completion_per_1m = output;
    price.long_context = [tier, ...(base?.long_context?.slice(1) ?? [])];
  }
  return price;
}

/** One line a table cell can hold: the main figures per 1M tokens, per image, per second. */
export function priceSummary(price: Price | null): string {
  if (!price) return 'No price';
  const parts: string[] = [];
  if (price.prompt_per_1m !== undefined) parts.push(`in $${price.prompt_per_1m}`);
  if (price.cached_prompt_per_1m !== undefined) parts.push(`cached $${price.cached_prompt_per_1m}`);
  if (price.cache_write_5m_per_1m !== undefined) parts.push(`write $${price.cache_write_5m_per_1m}`);
  if (price.completion_per_1m !== undefined) parts.push(`out $${price.completion_per_1m}`);
  if (price.image_completion_per_1m !== undefined) parts.push(`image out $${price.image_completion_per_1m}`);
  if (parts.length > 0) parts[parts.length - 1] += ' /1M';
  if (price.per_image !== undefined || price.per_image_by_size) parts.push('per image');
  if (price.per_video_second !== undefined || price.per_video_second_by_resolution) parts.push('per video second');
  if (price.per_search !== undefined) parts.push(`$${price.per_search} per search`);
  if (price.long_context?.length) parts.push(`> ${price.long_context[0]!.above_input_tokens.toLocaleString('en-US')} tokens: higher`);
  return parts.join(' · ') || 'Free';
}
