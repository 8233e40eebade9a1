import { findModel } from '../catalog/models.js';
import type { PriceConfig } from '../config/schema.js';
import { approximateTokens } from '../tokens/approximate.js';
import { DEFAULT_COMPLETION_ESTIMATE, promptTokens, requestedMaximum, templateTokens } from '../ratelimit/estimate.js';
import { costOf } from './prices.js';

/**
 * The most a request can cost, held against its key's budget while it runs (issue 13): the
 * prompt's approximate tokens with the chat template around them (issue 23 item 11), the
 * requested output maximum (DEFAULT_COMPLETION_ESTIMATE when the request names none, as for tpm)
 * plus the reasoning the model may produce before it answers (item 5), times the choices asked
 * for, the images asked for, and the video seconds the route gives. Unpriced models cost 0 and
 * hold nothing.
 */
export function worstCaseCost(prices: Readonly<Record<string, PriceConfig>> | undefined, model: string, body: unknown, videoSeconds: number): number {
  const price = prices?.[model];
  if (!price) return 0;
  const record = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const config = record.generationConfig as Record<string, unknown> | undefined;
  const choices = numberOr(record.n, numberOr(config?.candidateCount, 1));
  return costOf(prices, model, {
    promptTokens: price.prompt_per_1m ? promptTokens(body, approximateTokens) + templateTokens(body) : 0,
    completionTokens: price.completion_per_1m ? ((requestedMaximum(body) ?? DEFAULT_COMPLETION_ESTIMATE) + reasoningReserve(model, record)) * choices : 0,
    images: price.per_image ? choices : 0,
    videoSeconds,
  });
}

/**
 * Reasoning tokens a request may produce on top of its answer: the model's ceiling (catalog),
 * none when the request turns thinking off (`thinking: {type: "disabled"}`, Gemini
 * `thinkingBudget: 0`), a Gemini `thinkingBudget` when it is lower. Every output maximum is
 * counted as the answer's: Ark's `max_tokens` leaves the chain of thought out, and holding too
 * much only delays a request near the end of a budget, while holding too little overspends it.
 */
export function reasoningReserve(model: string, body: Readonly<Record<string, unknown>>): number {
  const ceiling = findModel(model)?.reasoningCeiling ?? 0;
  if (ceiling === 0) return 0;
  if ((body.thinking as { type?: unknown } | undefined)?.type === 'disabled') return 0;
  const config = (body.generationConfig as Record<string, unknown> | undefined) ?? {};
  const thinking = (config.thinkingConfig ?? config.thinking_config) as Record<string, unknown> | undefined;
  const budget = thinking?.thinkingBudget ?? thinking?.thinking_budget;
  return typeof budget === 'number' && budget >= 0 ? Math.min(budget, ceiling) : ceiling;
}

const numberOr = (value: unknown, fallback: number): number => (typeof value === 'number' && value >= 1 ? value : fallback);
