import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';
import type { ApiKey } from '../keys/key-store.js';
import { estimateTokens } from '../ratelimit/estimate.js';
import { RateLimiters, type LimitKind, type LimitState } from '../ratelimit/limiters.js';
import { limitsFor } from '../ratelimit/policy.js';
import { BudgetTracker } from '../usage/budget.js';
import { checkBillingConfig } from '../usage/prices.js';
import { assertModelAllowed } from './auth.js';
import { onRequestEnd, registerRequestEnd, type ResponseEnd } from './request-end.js';

/** What admission needs beyond the deps: the counters and the spend per key, built once per app. */
export interface Admission {
  limiters: RateLimiters;
  budgets: BudgetTracker;
}

declare module 'fastify' {
  interface FastifyInstance {
    admission: Admission;
  }
}

export interface AdmitOptions {
  /** The validated request body; its prompt and requested maximum make the token reservation. */
  body?: unknown;
  /** Budgets stop new work; reading a task already paid for (video polls) skips the check. */
  checkBudget?: boolean;
}

export function registerRateLimit(app: FastifyInstance): void {
  checkBillingConfig(app.gateway.config.file);
  const { redis, db, usage, now } = app.gateway;
  app.decorate('admission', { limiters: new RateLimiters(redis, now), budgets: new BudgetTracker(db, usage, now) } satisfies Admission);
  registerRequestEnd(app);
}

/**
 * Admission of a request once its model is known, the ONE call each model route makes: the key
 * may use the model (exact id), is within its budget, and within its per-minute request and
 * token limits for that model. Sets `request.gw.model` and the `x-ratelimit-*` headers (on the
 * raw response, so hijacked streams send them too). Throws the 403/429 for the family's envelope.
 */
export async function admit(request: FastifyRequest, reply: FastifyReply, model: string, options: AdmitOptions = {}): Promise<void> {
  const key = request.gw.key;
  assertModelAllowed(key, model);
  request.gw.model = model;
  if (!key) return;
  const { limiters, budgets } = request.server.admission;
  if (options.checkBudget !== false && key.budgetUsd !== null && (await budgets.spent(key.id)) >= key.budgetUsd) {
    throw new GatewayError('GW_QUOTA_EXCEEDED', `This API key has used its budget of ${key.budgetUsd} USD.`);
  }
  const limits = limitsFor(key, model, request.server.gateway.config.file.tiers);
  if (limits.rpm === null && limits.tpm === null) return;
  const counter = `${key.id}:${model}`;
  if (limits.rpm !== null) {
    const taking = limiters.take('requests', counter, limits.rpm, 1);
    const taken = taking instanceof Promise ? await taking : taking;
    setLimitHeaders(reply, 'requests', taken.state);
    if (!taken.admitted) throw rateLimited(key, model, 'requests', taken.state);
    if (limits.tpm !== null) await admitTokens(request, reply, key, model, limits.tpm, counter, options.body, () => limiters.give('requests', counter, 1, taken.windowEndsAt));
  } else if (limits.tpm !== null) {
    await admitTokens(request, reply, key, model, limits.tpm, counter, options.body, async () => undefined);
  }
}

/**
 * Reserves the estimated tokens (at most the whole minute's limit, so one large request can
 * still run in an empty window) and settles them to the real usage when the request ends.
 */
async function admitTokens(
  request: FastifyRequest, reply: FastifyReply, key: ApiKey, model: string, tpm: number, counter: string, body: unknown, giveBackRequest: () => Promise<void>,
): Promise<void> {
  const { limiters } = request.server.admission;
  const tokens = Math.min(tpm, body === undefined ? 0 : estimateTokens(body));
  const taking = limiters.take('tokens', counter, tpm, tokens);
  const taken = taking instanceof Promise ? await taking : taking;
  setLimitHeaders(reply, 'tokens', taken.state);
  if (!taken.admitted) {
    await giveBackRequest();
    throw rateLimited(key, model, 'tokens', taken.state);
  }
  request.gw.reservation = { counter, tokens, windowEndsAt: taken.windowEndsAt };
  onRequestEnd(request, reply, (end) => settleTokens(request, reply, end));
}

/**
 * Real usage replaces the reservation: the difference is counted or given back. Without usage,
 * an error answered before any upstream output gives everything back; a stream cut or abandoned
 * before its usage arrived keeps the reservation (the upstream may have billed it).
 */
async function settleTokens(request: FastifyRequest, reply: FastifyReply, end: ResponseEnd): Promise<void> {
  const reservation = request.gw.reservation;
  if (!reservation) return;
  const { limiters } = request.server.admission;
  const usage = request.gw.usage;
  const failedBeforeOutput = end.finished && reply.raw.statusCode >= 400;
  const used = usage ? usage.promptTokens + usage.completionTokens : failedBeforeOutput ? 0 : reservation.tokens;
  if (used > reservation.tokens) await limiters.add('tokens', reservation.counter, used - reservation.tokens);
  else await limiters.give('tokens', reservation.counter, reservation.tokens - used, reservation.windowEndsAt);
}

function setLimitHeaders(reply: FastifyReply, kind: LimitKind, state: LimitState): void {
  reply.raw.setHeader(`x-ratelimit-limit-${kind}`, String(state.limit));
  reply.raw.setHeader(`x-ratelimit-remaining-${kind}`, String(state.remaining));
  reply.raw.setHeader(`x-ratelimit-reset-${kind}`, formatReset(state.resetMs));
}

/** OpenAI's reset format: a duration such as `1s`, `6m0s`, `59.5s` (here whole seconds, rounded up). */
export function formatReset(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${seconds % 60}s` : `${seconds}s`;
}

function rateLimited(key: ApiKey, model: string, kind: LimitKind, state: LimitState): GatewayError {
  const what = kind === 'requests' ? `${state.limit} requests` : `${state.limit} tokens`;
  return new GatewayError('GW_RATE_LIMITED', `Rate limit of ${what} per minute reached for model '${model}' on this API key (${key.prefix}…). Retry after the reset.`, {
    retryAfterSeconds: Math.max(1, Math.ceil(state.resetMs / 1000)),
  });
}
