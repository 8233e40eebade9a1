import type { PriceConfig } from '../config/schema.js';
import { approximateTokens } from '../tokens/approximate.js';
import { DEFAULT_COMPLETION_ESTIMATE, promptTokens, requestedMaximum } from '../ratelimit/estimate.js';
import { costOf } from './prices.js';

/**
 * The most a request can cost, held against its key's budget while it runs (issue 13): the
 * prompt's approximate tokens, the requested output maximum (DEFAULT_COMPLETION_ESTIMATE when the
 * request names none, as for tpm) times the choices asked for, the images asked for, and the
 * video seconds the route gives. Unpriced models cost 0 and hold nothing.
 */
export function worstCaseCost(prices: Readonly<Record<string, PriceConfig>> | undefined, model: string, body: unknown, videoSeconds: number): number {
  const price = prices?.[model];
  if (!price) return 0;
  const record = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const config = record.generationConfig as Record<string, unknown> | undefined;
  const choices = numberOr(record.n, numberOr(config?.candidateCount, 1));
  return costOf(prices, model, {
    promptTokens: price.prompt_per_1m ? promptTokens(body, approximateTokens) : 0,
    completionTokens: price.completion_per_1m ? (requestedMaximum(body) ?? DEFAULT_COMPLETION_ESTIMATE) * choices : 0,
    images: price.per_image ? choices : 0,
    videoSeconds,
  });
}

const numberOr = (value: unknown, fallback: number): number => (typeof value === 'number' && value >= 1 ? value : fallback);
