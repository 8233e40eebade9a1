import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.js';
import type { RequestFacts } from '../contracts/request-facts.js';
import type { ApiKey } from '../keys/key-store.js';
import { estimateTokens } from '../ratelimit/estimate.js';
import { ExhaustedWindows } from '../ratelimit/exhausted-windows.js';
import { RateLimiters, type LimitKind, type LimitState, type Taken } from '../ratelimit/limiters.js';
import { limitsFor } from '../ratelimit/policy.js';
import { RateLimitedKeys } from '../ratelimit/rate-limited-keys.js';
import { BudgetTracker } from '../usage/budget.js';
import { VideoTaskRepo } from '../tasks/task-repo.js';
import { isRefusal, LocalBudgetHolds, type BudgetHolds } from '../usage/budget-holds.js';
import { SharedBudgetHolds } from '../usage/shared-budget-holds.js';
import { reasoningCeilingOf, reasoningReserve, worstCaseCost } from '../usage/worst-case.js';
import { chargeOfRequest } from './usage-recorder.js';
import { assertModelAllowed } from './auth.js';
import { onRequestEnd, registerRequestEnd, type ResponseEnd } from './request-end.js';
import { holdParallelSlot, registerAdmissionGate } from './admission-gate.js';

/** What admission needs beyond the deps: the counters and the spend per key, built once per app. */
export interface Admission {
  limiters: RateLimiters;
  budgets: BudgetTracker;
  holds: BudgetHolds;
  /** Requests in flight per key with `max_parallel_requests`, on this instance. */
  parallel: Map<string, number>;
  /** Request windows refused on this instance, so the next body for them is refused unparsed (issue 34). */
  exhausted: ExhaustedWindows;
  /** Keys whose rpm/tpm window is used up now, for the console (issue 35). */
  rateLimited: RateLimitedKeys;
}

declare module 'fastify' {
  interface FastifyInstance {
    admission: Admission;
  }
}

export interface AdmitOptions {
  /**
   * The family's facts of the request (api/<family>/facts.ts): its prompt and requested maximum
   * make the token reservation and worst-case cost. Kept on `request.gw.facts` for routing and billing.
   */
  facts?: RequestFacts;
  /** Budgets stop new work; reading a task already paid for (video polls) skips the check. */
  checkBudget?: boolean;
  /** Seconds of video the request may generate at most (video task creation), for its worst-case cost. */
  videoSeconds?: number;
}

export function registerRateLimit(app: FastifyInstance): void {
  const { redis, db, usage, now, instances } = app.gateway;
  const videoTasks = new VideoTaskRepo(db);
  const budgets = new BudgetTracker(db, usage, (keyId) => videoTasks.pendingCost(keyId), now);
  // With Redis, what each instance holds and counts is its own (db/instance-registry.ts, issue 23).
  const holds = redis && instances ? new SharedBudgetHolds(redis, instances, budgets, usage) : new LocalBudgetHolds(budgets);
  const limiters = new RateLimiters(redis, now, instances);
  app.addHook('onClose', () => limiters.close());
  app.decorate('admission', {
    limiters,
    budgets,
    holds,
    parallel: new Map(),
    exhausted: new ExhaustedWindows(now),
    rateLimited: new RateLimitedKeys(redis, now),
  } satisfies Admission);
  registerRequestEnd(app);
  registerAdmissionGate(app);
}

/**
 * Admission of a request once its model is known, the ONE call each model route makes: the key
 * may use the model (exact id), is within its budget, and within its per-minute request and
 * token limits for that model. Sets `request.gw.model` and the `x-ratelimit-*` headers (streams
 * send the reply's headers too). Throws the 403/429 for the family's envelope. With in-process
 * counters and no budget to look up it returns without a promise (this runs on every request).
 */
export function admit(request: FastifyRequest, reply: FastifyReply, model: string, options: AdmitOptions = {}): void | Promise<void> {
  // No new billable work without a durable record of its usage (issue 34); task queries are not new work.
  if (options.checkBudget !== false && request.server.gateway.usage.isJournalFailing) throw usageNotDurable();
  const key = request.gw.key;
  assertModelAllowed(key, model);
  request.gw.model = model;
  if (options.facts) request.gw.facts = options.facts;
  if (!key) return;
  // A request with a body took its slot on its headers (admission-gate.ts).
  if (key.maxParallel !== null && !request.gw.parallelSlot) holdParallelSlot(request, reply, key, key.maxParallel);
  if (options.checkBudget !== false && key.budgetUsd !== null) {
    return holdBudget(request, reply, key, model, options).then(() => admitLimits(request, reply, key, model, options.facts));
  }
  return admitLimits(request, reply, key, model, options.facts);
}

const usageNotDurable = () =>
  new GatewayError('GW_STORE_UNAVAILABLE', 'The gateway cannot record usage durably right now (its usage journal cannot be written: disk full?); retry shortly.', { retryAfterSeconds: 5 });

/**
 * Holds the request's worst-case cost against the key's budget (issue 13): admitted only when
 * spent + held + pending video + this worst case fits, so concurrent requests cannot overshoot
 * it together. The hold is replaced by the real cost when the request ends.
 */
async function holdBudget(request: FastifyRequest, reply: FastifyReply, key: ApiKey, model: string, options: AdmitOptions): Promise<void> {
  const { budgets, holds } = request.server.admission;
  const { prices, catalog } = request.server.gateway;
  const reasoning = reasoningReserve(reasoningCeilingOf(model, catalog.find(model)), options.facts);
  const worst = worstCaseCost(prices.candidatesFor(model), options.facts, options.videoSeconds ?? 0, reasoning);
  const held = await holds.hold(key.id, key.budgetUsd!, worst, await budgets.pendingVideo(key.id));
  if (isRefusal(held)) {
    const refusal = held;
    const spent = `${round(refusal.spentUsd)} USD spent`;
    if (refusal.spentUsd >= key.budgetUsd!) throw new GatewayError('GW_QUOTA_EXCEEDED', `This API key has used its budget of ${key.budgetUsd} USD (${spent}).`);
    const lower = reasoning > 0 ? `This model may reason for up to ${reasoning} tokens before it answers, which the budget must hold: turn thinking off, or lower max_tokens,` : 'Lower max_tokens,';
    throw new GatewayError('GW_QUOTA_EXCEEDED', `This request could cost up to ${round(worst)} USD, more than is left of this API key's budget of ${key.budgetUsd} USD (${spent}, ${round(refusal.heldUsd)} USD held by requests and video tasks in progress). ${lower} or retry when they end.`);
  }
  request.gw.budgetHold = held;
  onRequestEnd(request, reply, settleBudget);
}

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;

/** The hold gives way to the real cost (recorded by the usage hook, which ran first). A video task's cost is held by its row instead. */
function settleBudget(_end: ResponseEnd, request: FastifyRequest): void | Promise<void> {
  const gw = request.gw;
  const hold = gw.budgetHold;
  if (!hold) return;
  gw.budgetHold = undefined;
  const actual = chargeOfRequest(request)?.usd ?? 0;
  return hold.settle(actual, gw.entryId);
}

function admitLimits(request: FastifyRequest, reply: FastifyReply, key: ApiKey, model: string, facts: RequestFacts | undefined): void | Promise<void> {
  const limits = limitsFor(key, model, request.server.gateway.config.file.tiers);
  if (limits.rpm === null && limits.tpm === null) return;
  const counter = `${key.id}:${model}`;
  if (limits.rpm === null) return admitTokens(request, reply, key, model, limits.tpm!, counter, facts, undefined);
  const taking = request.server.admission.limiters.take('requests', counter, limits.rpm, 1);
  if (taking instanceof Promise) return taking.then((taken) => afterRequestStep(request, reply, key, model, limits.tpm, counter, facts, taken));
  return afterRequestStep(request, reply, key, model, limits.tpm, counter, facts, taking);
}

function afterRequestStep(
  request: FastifyRequest, reply: FastifyReply, key: ApiKey, model: string, tpm: number | null, counter: string, facts: RequestFacts | undefined, taken: Taken,
): void | Promise<void> {
  setLimitHeaders(reply, REQUEST_HEADERS, taken.state);
  noteRateLimited(request, key, model, 'requests', taken);
  if (!taken.admitted) {
    request.server.admission.exhausted.refused(key.id, model, taken.state.limit, taken.windowEndsAt);
    throw rateLimited(key, model, 'requests', taken.state);
  }
  if (tpm !== null) return admitTokens(request, reply, key, model, tpm, counter, facts, taken);
}

/**
 * Reserves the estimated tokens (at most the whole minute's limit, so one large request can
 * still run in an empty window) and settles them to the real usage when the request ends. A
 * refusal gives back the request already counted (`requestTaken`).
 */
function admitTokens(
  request: FastifyRequest, reply: FastifyReply, key: ApiKey, model: string, tpm: number, counter: string, facts: RequestFacts | undefined, requestTaken: Taken | undefined,
): void | Promise<void> {
  const tokens = Math.min(tpm, facts === undefined ? 0 : estimateTokens(facts));
  const taking = request.server.admission.limiters.take('tokens', counter, tpm, tokens);
  if (taking instanceof Promise) return taking.then((taken) => afterTokenStep(request, reply, key, model, counter, tokens, requestTaken, taken));
  return afterTokenStep(request, reply, key, model, counter, tokens, requestTaken, taking);
}

function afterTokenStep(
  request: FastifyRequest, reply: FastifyReply, key: ApiKey, model: string, counter: string, tokens: number, requestTaken: Taken | undefined, taken: Taken,
): void | Promise<void> {
  setLimitHeaders(reply, TOKEN_HEADERS, taken.state);
  noteRateLimited(request, key, model, 'tokens', taken);
  if (taken.admitted) {
    request.gw.reservation = { counter, tokens, windowEndsAt: taken.windowEndsAt };
    onRequestEnd(request, reply, settleTokens);
    return;
  }
  const refused = rateLimited(key, model, 'tokens', taken.state);
  const { limiters, exhausted } = request.server.admission;
  // The request given back makes room in its window: a refusal remembered there no longer holds.
  if (requestTaken) exhausted.forget(key.id, model);
  const given = requestTaken ? limiters.give('requests', counter, 1, requestTaken.windowEndsAt) : undefined;
  if (given) return given.then(() => Promise.reject(refused));
  throw refused;
}

/** A window this step used up, or a refusal: the key reads "rate-limited now" until the window ends. */
function noteRateLimited(request: FastifyRequest, key: ApiKey, model: string, kind: LimitKind, taken: Taken): void {
  if (taken.admitted && taken.state.remaining > 0) return;
  request.server.admission.rateLimited.note(key.id, { kind, model, limit: taken.state.limit, until: taken.windowEndsAt });
}

/**
 * Real usage replaces the reservation: the difference is counted or given back. Without usage,
 * an error answered before any upstream output gives everything back; a stream cut or abandoned
 * before its usage arrived keeps the reservation (the upstream may have billed it).
 */
function settleTokens(end: ResponseEnd, request: FastifyRequest, reply: FastifyReply): void | Promise<void> {
  const reservation = request.gw.reservation;
  if (!reservation) return;
  const { limiters } = request.server.admission;
  const usage = request.gw.usage;
  const failedBeforeOutput = end.finished && reply.raw.statusCode >= 400;
  // A cache hit used no upstream tokens (issue 32): its reservation goes back whole.
  const used = request.gw.cacheHit ? 0 : usage ? usage.promptTokens + usage.completionTokens : failedBeforeOutput ? 0 : reservation.tokens;
  if (used > reservation.tokens) return limiters.add('tokens', reservation.counter, used - reservation.tokens);
  return limiters.give('tokens', reservation.counter, reservation.tokens - used, reservation.windowEndsAt);
}

/** The header names per kind, built once (this runs on every limited request). */
const headerNames = (kind: LimitKind) => ({ limit: `x-ratelimit-limit-${kind}`, remaining: `x-ratelimit-remaining-${kind}`, reset: `x-ratelimit-reset-${kind}` });
const REQUEST_HEADERS = headerNames('requests');
const TOKEN_HEADERS = headerNames('tokens');

/**
 * On the reply, not the raw response: Node's writeHead stays on its fast path only when nothing
 * called setHeader before it. Streams (hijacked replies) send the reply's headers themselves.
 */
function setLimitHeaders(reply: FastifyReply, names: ReturnType<typeof headerNames>, state: LimitState): void {
  reply.header(names.limit, String(state.limit));
  reply.header(names.remaining, String(state.remaining));
  reply.header(names.reset, formatReset(state.resetMs));
}

/** OpenAI's reset format: a duration such as `1s`, `6m0s`, `59.5s` (here whole seconds, rounded up). */
export function formatReset(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes}m${seconds % 60}s` : `${seconds}s`;
}

/**
 * The refusal of a body whose `model` names a request window this instance has just refused for
 * the key (ExhaustedWindows), decided before the body is parsed; undefined when none applies.
 */
export function refusedUnparsed(request: FastifyRequest, key: ApiKey, model: string): GatewayError | undefined {
  const limits = limitsFor(key, model, request.server.gateway.config.file.tiers);
  const leftMs = request.server.admission.exhausted.remainingMs(key.id, model, limits.rpm);
  if (leftMs === 0) return undefined;
  return rateLimited(key, model, 'requests', { limit: limits.rpm!, remaining: 0, resetMs: leftMs });
}

function rateLimited(key: ApiKey, model: string, kind: LimitKind, state: LimitState): GatewayError {
  const what = kind === 'requests' ? `${state.limit} requests` : `${state.limit} tokens`;
  return new GatewayError('GW_RATE_LIMITED', `Rate limit of ${what} per minute reached for model '${model}' on this API key (${key.prefix}…). Retry after the reset.`, {
    retryAfterSeconds: Math.max(1, Math.ceil(state.resetMs / 1000)),
  });
}
