import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../errors.js';
import type { PairFamily, TranslateContext, TranslatorPair } from '../contracts/translator.js';
import type { UpstreamCall } from '../contracts/upstream-call.js';
import { noteAttempt } from '../requests/attempts.js';
import type { AttemptTrace } from '../telemetry/tracing.js';
import { attemptSpanEnd, attemptSpanStart } from '../telemetry/attempt-span.js';
import type { Channel } from './channel.js';
import { routeModelOffering } from './route-model.js';
import { conversationOf, stickyOrder } from './sticky-route.js';
import { parseRetryAfter, retryDelayMs, RETRYABLE_STATUSES } from './retry-policy.js';
import { readErrorBody, toTransportError, type UpstreamResponse } from './upstream-client.js';
import { ClientGone, pause, type Cancellation } from './cancellation.js';
import { serializeInTurns } from './serialize-in-turns.js';
import { attemptAnswered, attemptFailed } from './attempt-outcome.js';
import { isJsonAnswer, openStream } from './stream-priming.js';
import type { Attempt, DispatchOptions, PairOf, RequestOf } from './dispatch-types.js';
import { redactBody, redactError } from './channel-redactor.js';

/** One channel's turn in the attempt loop: what every try on it needs. */
interface ChannelRun<F extends PairFamily> {
  options: DispatchOptions<F>;
  cancel: Cancellation;
  stream: boolean;
  channel: Channel;
  pair: PairOf<F>;
}

/** A try that failed: the error, the status that decides what follows, and the status the upstream answered. */
interface FailedTry {
  error: GatewayError;
  status: number | undefined;
  answered: number | undefined;
}

/** How a failed attempt continues: retry the same channel, move to the next, or stop here. */
type Verdict = 'retry' | 'next-channel' | 'final';

function verdictFor(error: GatewayError, status: number | undefined): Verdict {
  if (status === undefined) return error.code === 'GW_UPSTREAM_BAD_RESPONSE' ? 'next-channel' : 'retry';
  if (RETRYABLE_STATUSES.has(status)) return 'retry';
  // Our credentials for this account were refused: another account may still serve the request.
  if (status === 401 || status === 403) return 'next-channel';
  // The model is gone from this account or deployment (or the base URL is wrong): the channel's
  // fault, counted against it; another channel may still have the model (issue 14).
  if (status === 404) return 'next-channel';
  return 'final';
}

function contextFor(request: FastifyRequest, channel: Channel, model: string, includeUsage: boolean, client: DispatchOptions<PairFamily>['client']): TranslateContext {
  const ctx: TranslateContext = {
    model,
    upstreamModel: channel.models[model]!,
    requestId: request.id,
    now: Math.floor(request.gw.startedAt / 1000),
    includeUsage,
  };
  if (channel.promptCache === 'off') ctx.promptCache = 'off';
  return client ? Object.assign(ctx, client) : ctx;
}

/**
 * Tries the model's channels in route order, skipping open circuits. Retryable failures
 * (transport errors, timeouts, 408/429/5xx/529) are retried on the same channel with backoff and
 * jitter, honouring Retry-After, up to the channel's `max_retries`; then the next channel is
 * tried. A final upstream 4xx goes back to the client at once. Nothing has reached the client
 * yet at this point, so falling back is always safe.
 */
export async function sendWithFallback<F extends PairFamily>(options: DispatchOptions<F>, cancel: Cancellation, stream: boolean): Promise<Attempt<F>> {
  const { request, family, model } = options;
  const gateway = request.server.gateway;
  const { circuits } = gateway;
  const candidates = routeModelOffering(options.channels ?? gateway.channels, model, (channel) => channel.provider.pairs[family] as PairOf<F> | undefined, family);
  const closed = circuits.anyTripped ? candidates.filter(({ channel }) => !circuits.isOpen(channel.name)) : candidates;
  // With every circuit open, trying anyway beats refusing outright.
  let ordered = closed.length > 0 ? closed : candidates;
  if (ordered.length > 1) {
    const conversation = gateway.config.file.routing?.sticky_sessions === false ? undefined : conversationOf(request.headers, request.gw.facts?.conversation, request.gw.key?.id);
    if (conversation !== undefined) ordered = stickyOrder(ordered, conversation, gateway.stickyLoad);
    // Every routed request counts toward its channel's recent traffic, sticky or not.
    gateway.stickyLoad?.note(ordered[0]!.channel.name);
  }
  const failures: { last?: GatewayError } = {};
  for (const { channel, offer } of ordered) {
    if (closed.length > 0 && !circuits.tryAcquire(channel.name)) continue;
    if (failures.last) request.gw.fallbacks++;
    const answered = await tryChannel({ options, cancel, stream, channel, pair: offer }, failures);
    if (answered) return answered;
  }
  throw failures.last ?? new GatewayError('GW_NO_CHANNEL', `No upstream channel is available for model '${model}'`);
}

/**
 * One channel's attempts: the answer, or undefined to move on to the next channel (the failure
 * in `failures.last`); throws when the failure is final or the client left.
 */
async function tryChannel<F extends PairFamily>(run: ChannelRun<F>, failures: { last?: GatewayError }): Promise<Attempt<F> | undefined> {
  const { options, channel, cancel } = run;
  const { request } = options;
  const gateway = request.server.gateway;
  // Every way out of this channel's attempts settles its circuit: success, failure, or release.
  let settled = false;
  try {
    const ctx = contextFor(request, channel, options.model, options.includeUsage ?? false, options.client);
    const call = await upstreamCallFor(run, ctx);
    for (let attempt = 1; ; attempt++) {
      request.gw.channel = channel.name;
      if (attempt > 1) request.gw.retries++;
      const sentAt = Date.now();
      const result = await tryOnce(run, ctx, call, attempt);
      settled = true;
      if (!('error' in result)) {
        attemptAnswered(gateway, channel.name, sentAt);
        // Only after a failed try: a first-try answer keeps no list and allocates nothing.
        if (request.gw.attempts) request.gw.attempts = noteAttempt(request.gw.attempts, { channel: channel.name, status: result.response.status, latency_ms: Date.now() - sentAt, error_code: null, error_message: null });
        return result;
      }
      const again = await continuesOnChannel(run, result, attempt, sentAt);
      // After: continuesOnChannel may say the failure in the client's words (endpointAbsent).
      failures.last = result.error;
      if (!again) return undefined;
    }
  } finally {
    if (!settled) gateway.circuits.release(channel.name);
  }
}

/** The channel's upstream call, serialised once for all its attempts; a large body in slices, turn by turn. */
async function upstreamCallFor<F extends PairFamily>({ options, pair, stream }: ChannelRun<F>, ctx: TranslateContext): Promise<UpstreamCall> {
  const call = (pair as unknown as TranslatorPair<RequestOf<F>, unknown>).toUpstream(options.body, ctx);
  call.stream = stream;
  if (options.request.gw.largeBody && call.body !== undefined && typeof call.body !== 'string') call.body = await serializeInTurns(call.body);
  return call;
}

/** One send to the channel: the answering attempt (streams primed), or why it failed. Throws when the client left. */
async function tryOnce<F extends PairFamily>(run: ChannelRun<F>, ctx: TranslateContext, call: UpstreamCall, attempt: number): Promise<Attempt<F> | FailedTry> {
  const { options: { request }, channel, cancel, stream } = run;
  const pair = run.pair as unknown as TranslatorPair<unknown, unknown>;
  const span = request.gw.trace?.startAttempt(attemptSpanStart({ channel, operation: request.routeOptions.config.operation, upstreamModel: ctx.upstreamModel, attempt, method: call.method }));
  let answered: number | undefined;
  let status: number | undefined;
  try {
    const response = await request.server.gateway.upstream.send(channel, call, cancel, span?.headers);
    answered = response.status;
    if (response.status >= 400 || (stream && isJsonAnswer(response))) {
      // A stream request answered with JSON (`200 {"error":…}`) failed the same way.
      status = response.status < 400 ? undefined : response.status;
      const mapped = pair.fromUpstreamError(response.status < 400 ? 502 : response.status, redactBody(await readErrorBody(response.body), channel.redact));
      return failedTry(span, channel, { error: withRetryAfter(mapped, response), status, answered });
    }
    const first = stream ? await openStream(response, channel, pair, ctx) : undefined;
    if (!first?.failedBeforeOutput) return { response, channel, pair: run.pair, ctx, span, ...first };
    // The upstream's first event was its error: nothing reached the client, so this is a
    // failed attempt like any other (retry, then fall back), not a 200 with a lone error.
    response.body.destroy();
    const error = isGatewayError(first.relay.failure) ? first.relay.failure : new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event that could not be read');
    return failedTry(span, channel, { error, status, answered });
  } catch (error) {
    if (cancel.cancelled) {
      const gone = new GatewayError('GW_CLIENT_CLOSED', 'The client closed the connection', { cause: error });
      span?.end(attemptSpanEnd({ status: answered, errorType: gone.code }));
      throw gone;
    }
    return failedTry(span, channel, { error: isGatewayError(error) ? error : toTransportError(error, channel), status, answered });
  }
}

/** A failed try, its error redacted of the channel's secrets and host before the client, the request log, the channel's health and the log see it. */
function failedTry(span: AttemptTrace | undefined, channel: Channel, failed: FailedTry): FailedTry {
  span?.end(attemptSpanEnd({ status: failed.answered, errorType: failed.error.code }));
  return { ...failed, error: redactError(failed.error, channel.redact) };
}

/**
 * After a failed try: noted, logged and told to the channel's circuit; true to try the channel
 * again (after its backoff), false to move on. Throws a final failure, or when the client left.
 */
async function continuesOnChannel<F extends PairFamily>(run: ChannelRun<F>, failed: FailedTry, attempt: number, sentAt: number): Promise<boolean> {
  const { options: { request }, channel, cancel } = run;
  const gateway = request.server.gateway;
  const { error, status } = failed;
  request.gw.attempts = noteAttempt(request.gw.attempts, { channel: channel.name, status: failed.answered ?? null, latency_ms: Date.now() - sentAt, error_code: error.kind.publicCode, error_message: error.message, vendor_message: error.vendorMessage ?? null });
  if (status === 404 && (run.pair as { endpointMayBeAbsent?: boolean }).endpointMayBeAbsent) return endpointAbsent(run, failed, attempt);
  const verdict = verdictFor(error, status);
  // The channel's name stays with the operator (log, metrics), never in the client's error.
  request.log.warn({ channel: channel.name, attempt, status, code: error.code, verdict }, 'upstream attempt failed');
  if (verdict === 'final') {
    // The upstream answered; the request was the client's problem, not the channel's.
    attemptAnswered(gateway, channel.name, sentAt);
    throw error;
  }
  attemptFailed(gateway, channel.name, sentAt, status, error.message, error.vendorMessage);
  if (verdict === 'next-channel' || attempt > channel.maxRetries || gateway.circuits.isOpen(channel.name)) return false;
  const delay = retryDelayMs(gateway.retryPolicy, attempt, error.retryAfterSeconds);
  if (delay === undefined) return false;
  await pause(delay, cancel);
  if (cancel.cancelled) throw new GatewayError('GW_CLIENT_CLOSED', 'The client closed the connection');
  return true;
}

/**
 * The channel's server has no such endpoint (issue 33): a capability of the channel, not a fault.
 * Its circuit is left alone (a probe slot given back), so its other families keep their traffic;
 * the request moves to the next channel, and if none answers the client learns what to configure.
 */
function endpointAbsent<F extends PairFamily>(run: ChannelRun<F>, failed: FailedTry, attempt: number): false {
  const { options: { request, family }, channel } = run;
  request.server.gateway.circuits.release(channel.name);
  request.log.warn({ channel: channel.name, attempt, status: 404, family }, 'upstream has no endpoint for this family; see the channel\'s `responses` setting');
  failed.error = new GatewayError('GW_MODEL_UNSUPPORTED', `Model '${run.options.model}' is not available on this endpoint: its upstream does not serve it (the server answered 404 for its path)`, { cause: failed.error });
  return false;
}

function withRetryAfter(error: GatewayError, response: UpstreamResponse): GatewayError {
  // `retry-after-ms` (Azure OpenAI, OpenAI) is finer than `retry-after` and wins, as in the openai SDKs.
  const ms = Number(response.headers['retry-after-ms'] ?? NaN);
  const seconds = Number.isFinite(ms) && ms >= 0 ? ms / 1000 : parseRetryAfter(response.headers['retry-after']);
  if (seconds === undefined || error.retryAfterSeconds !== undefined) return error;
  return error.with({ retryAfterSeconds: seconds });
}

/**
 * The client's departure as a cancellation: the request's end state (its one close listener)
 * on model routes, a listener of its own otherwise.
 */
export function clientGoneOf(options: { request: FastifyRequest; reply: FastifyReply }): Cancellation {
  return options.request.gw?.ending ?? new ClientGone(options.reply);
}
