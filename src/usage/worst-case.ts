import { DEFAULT_REASONING_CEILING, findModel } from '../catalog/models.js';
import type { CatalogEntry } from '../catalog/catalog.js';
import type { LongContextTierConfig, PriceConfig } from '../config/schema.js';
import { approximateTokens } from '../tokens/approximate.js';
import { DEFAULT_COMPLETION_ESTIMATE } from '../ratelimit/estimate.js';
import { NO_MEDIA, type RequestFacts } from '../contracts/request-facts.js';
import { perVideoSecond, priceUsage } from './cost-lines.js';

/**
 * The most a request can cost, held against its key's budget while it runs (issue 13): the
 * prompt's approximate tokens with the chat template around them (issue 23 item 11), the
 * requested output maximum (DEFAULT_COMPLETION_ESTIMATE when the request names none, as for tpm)
 * plus the reasoning the model may produce before it answers (`reasoningTokens`, item 5), times
 * the choices asked for, the images asked for, and the video seconds the route gives, at the
 * dearest price any channel serving the model charges (issue 21): every input token at the
 * dearest input rate (a 1-hour cache write costs twice the input), every output token at the
 * dearest output rate, the long-context tier when the prompt passes it. Unpriced models cost 0
 * and hold nothing. A request whose family gave no facts (a video task's admission) holds only
 * its output estimate and video seconds.
 */
export function worstCaseCost(candidates: readonly PriceConfig[], facts: RequestFacts | undefined, videoSeconds: number, reasoningTokens = 0): number {
  if (candidates.length === 0) return 0;
  const choices = facts?.choices ?? 1;
  const media = facts?.media ?? NO_MEDIA;
  let prompt: number | undefined;
  let worst = 0;
  for (const candidate of candidates) {
    const price = ceilingOf(candidate, media.videoResolution);
    if (price.prompt_per_1m || price.long_context?.some((tier) => tier.prompt_per_1m)) prompt ??= facts ? facts.promptTokens(approximateTokens) + facts.templateTokens() : 0;
    const cost = priceUsage(price, {
      promptTokens: price.prompt_per_1m || price.long_context ? (prompt ?? 0) : 0,
      completionTokens: price.completion_per_1m || price.long_context ? ((facts?.maxOutputTokens ?? DEFAULT_COMPLETION_ESTIMATE) + reasoningTokens) * choices : 0,
      images: price.per_image ? choices : 0,
      videoSeconds,
      // A rerank request is one search.
      searches: price.per_search ? 1 : 0,
    }).usd;
    worst = Math.max(worst, cost);
  }
  return worst;
}

/**
 * The reasoning a model may produce before it answers (catalog/models.ts): the spec's models carry
 * their own figure; an operator's model of kind `reasoning` the vendors' common ceiling.
 */
export function reasoningCeilingOf(model: string, entry: CatalogEntry | undefined): number {
  const spec = findModel(model);
  if (spec) return spec.reasoningCeiling ?? 0;
  return entry?.kind === 'reasoning' ? DEFAULT_REASONING_CEILING : 0;
}

/**
 * Reasoning tokens a request may produce on top of its answer: the model's ceiling, none when
 * the request turns thinking off, the request's own reasoning budget when it is lower (the facts'
 * `reasoningBudget`). Every output maximum is counted as the answer's: Ark's `max_tokens` leaves
 * the chain of thought out, and holding too much only delays a request near the end of a budget,
 * while holding too little overspends it.
 */
export function reasoningReserve(ceiling: number, facts: RequestFacts | undefined): number {
  if (ceiling === 0) return 0;
  const budget = facts?.reasoningBudget;
  if (budget === 'off') return 0;
  return budget === undefined ? ceiling : Math.min(budget, ceiling);
}

type TokenRates = Omit<LongContextTierConfig, 'above_input_tokens'>;

const max = (...values: Array<number | undefined>): number | undefined => {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length > 0 ? Math.max(...known) : undefined;
};

/** One input and one output rate: the dearest of each kind. */
function flatten(rates: TokenRates): Pick<TokenRates, 'prompt_per_1m' | 'completion_per_1m'> {
  const input = max(rates.prompt_per_1m, rates.cached_prompt_per_1m, rates.cache_write_5m_per_1m, rates.cache_write_1h_per_1m, rates.image_prompt_per_1m);
  const output = max(rates.completion_per_1m, rates.reasoning_per_1m, rates.image_completion_per_1m);
  return { ...(input !== undefined ? { prompt_per_1m: input } : {}), ...(output !== undefined ? { completion_per_1m: output } : {}) };
}

/** A price where every token is at its kind's dearest rate, every image at the dearest size, every second at the asked (or dearest) resolution. */
function ceilingOf(price: PriceConfig, resolution: string | undefined): PriceConfig {
  const imageRates = [price.per_image, ...Object.values(price.per_image_by_size ?? {}).flatMap((row) => Object.values(row))];
  const perImage = max(...imageRates);
  const perSecond = resolution !== undefined || !price.per_video_second_by_resolution
    ? perVideoSecond(price, resolution)
    : max(price.per_video_second, ...Object.values(price.per_video_second_by_resolution));
  return {
    ...flatten(price),
    ...(perImage ? { per_image: perImage } : {}),
    ...(perSecond ? { per_video_second: perSecond } : {}),
    ...(price.per_search ? { per_search: price.per_search } : {}),
    ...(price.long_context ? { long_context: price.long_context.map((tier) => ({ above_input_tokens: tier.above_input_tokens, ...flatten({ ...price, ...tier }) })) } : {}),
  };
}
