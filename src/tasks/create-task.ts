import { randomBytes } from 'node:crypto';
import { redactBody, redactError } from '../gateway/channel-redactor.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../errors.js';
import type { Channel } from '../gateway/channel.js';
import { parseRetryAfter, retryDelayMs, RETRYABLE_STATUSES } from '../gateway/retry-policy.js';
import { routeModelOffering } from '../gateway/route-model.js';
import { readErrorBody, toTransportError, type UpstreamResponse } from '../gateway/upstream-client.js';
import type { TranslateContext } from '../contracts/translator.js';
import type { UpstreamCall } from '../contracts/upstream-call.js';
import { worstCaseCost } from '../usage/worst-case.js';
import type { RequestFacts } from '../contracts/request-facts.js';
import { attemptSpanEnd, attemptSpanStart } from '../telemetry/attempt-span.js';
import type { AttemptTrace } from '../telemetry/tracing.js';
import { NOT_SUBMITTED, VideoTaskRepo } from './task-repo.js';
import type { VideoAdapter, VideoAdapterSurface, VideoSurfaceAdapters } from '../contracts/video-adapter.js';
import type { VideoSurface, VideoTask } from './video-task.js';
import { attemptAnswered, attemptFailed } from '../gateway/attempt-outcome.js';

type RequestOf<S extends VideoAdapterSurface> = VideoSurfaceAdapters[S] extends VideoAdapter<infer Req> ? Req : never;

export interface CreateVideoTaskOptions<S extends VideoAdapterSurface & VideoSurface> {
  request: FastifyRequest;
  surface: S;
  /** Our public id for the task. */
  id: string;
  model: string;
  /** The /videoalt capability (its query path depends on it); null elsewhere. */
  capability: string | null;
  body: RequestOf<S>;
  externalId?: string | null;
  /** The most seconds the task can generate: its worst-case cost is held against the key's budget until it ends. */
  videoSeconds: number;
  /** The family's facts of the request (api/<family>/facts.ts), for the worst-case cost. */
  facts: RequestFacts;
}

/** `asyntask_` + 24 hex characters (spec: "form asyntask_<suffix>"). */
export const newAsyncTaskId = (): string => `asyntask_${randomBytes(12).toString('hex')}`;

/** A failed submission and how to go on: the same channel again, the next channel, or stop. */
type Outcome = { upstreamId: string } | { error: GatewayError; next: 'retry' | 'next-channel' | 'final' };

/** How long a row may wait for its submission before the poller calls it failed (an instance died mid-submission). */
const SUBMISSION_GRACE_MS = 10 * 60_000;

/**
 * Writes the task's row first (so a task can never exist upstream without one, and the unique
 * `external_task_id` is claimed before anything is paid), then submits it. A submission that
 * fails removes the row again; an accepted one records the upstream id and starts polling.
 */
export async function createVideoTask<S extends VideoAdapterSurface & VideoSurface>(options: CreateVideoTaskOptions<S>): Promise<VideoTask> {
  const deps = options.request.server.gateway;
  const repo = new VideoTaskRepo(deps.db);
  const now = deps.now();
  const row = await repo.insert({
    id: options.id,
    keyId: options.request.gw.key!.id,
    surface: options.surface,
    capability: options.capability,
    model: options.model,
    channel: '',
    upstreamId: NOT_SUBMITTED,
    status: 'queued',
    progress: 0,
    request: options.body,
    externalId: options.externalId ?? null,
    now,
    nextPollAt: now + SUBMISSION_GRACE_MS,
    reservedUsd: worstCaseCost(deps.prices.candidatesFor(options.model), options.facts, options.videoSeconds),
  });
  // The row holds the cost from now on (until the task ends), not the request: give the request's
  // hold back, and drop this instance's cached figure of the key's pending tasks.
  options.request.server.admission.budgets.forgetPendingVideo(row.keyId);
  const hold = options.request.gw.budgetHold;
  if (hold) {
    options.request.gw.budgetHold = undefined;
    await hold.settle(0);
  }
  let accepted: { channel: Channel; upstreamId: string };
  try {
    accepted = await submitToChannels(options);
  } catch (error) {
    await repo.discard(row.id).catch((discardError: unknown) => options.request.log.error({ err: discardError, task: row.id }, 'video task row could not be removed after a failed submission'));
    throw error;
  }
  const submittedAt = deps.now();
  try {
    await repo.markSubmitted(row.id, accepted.channel.name, accepted.upstreamId, submittedAt);
  } catch (error) {
    // The task exists upstream; the row stays and the poller ends it as failed after the grace period.
    options.request.log.error({ err: error, task: row.id, channel: accepted.channel.name }, 'video task accepted upstream but its row could not be updated');
    throw error;
  }
  return { ...row, channel: accepted.channel.name, upstreamId: accepted.upstreamId, polledAt: submittedAt, updatedAt: submittedAt };
}

/**
 * Submits the task to the model's channels with the same rules as dispatch.ts: open circuits are
 * skipped, retryable failures (transport, 408/429/5xx) retried with backoff up to `max_retries`,
 * 401/403 move to the next channel, other 4xx are final. A 2xx whose body names no task (or,
 * for Kling, carries an error code) is final too: submitting again could create a second task.
 * The client leaving does not cancel the submission: an upstream task that exists must have its
 * row, or nobody could ever poll it.
 */
async function submitToChannels<S extends VideoAdapterSurface & VideoSurface>(options: CreateVideoTaskOptions<S>): Promise<{ channel: Channel; upstreamId: string }> {
  const { request, model } = options;
  const gateway = request.server.gateway;
  const { circuits, retryPolicy } = gateway;
  const candidates = routeModelOffering(gateway.channels, model, (channel) => channel.provider.video?.[options.surface] as VideoAdapter<RequestOf<S>> | undefined);
  const closed = candidates.filter(({ channel }) => !circuits.isOpen(channel.name));
  const ordered = closed.length > 0 ? closed : candidates;
  let lastError: GatewayError | undefined;
  for (const { channel, offer: adapter } of ordered) {
    if (closed.length > 0 && !circuits.tryAcquire(channel.name)) continue;
    // As in dispatch.ts: every way out settles the circuit, or a half-open probe slot stays taken.
    let settled = false;
    try {
      const ctx: TranslateContext = { model, upstreamModel: channel.models[model]!, requestId: request.id, now: Math.floor(request.gw.startedAt / 1000), includeUsage: false };
      const call = adapter.toCreateRequest(options.body, ctx);
      for (let attempt = 1; ; attempt++) {
        request.gw.channel = channel.name;
        const sentAt = Date.now();
        const span = request.gw.trace?.startAttempt(attemptSpanStart({ channel, operation: request.routeOptions.config.operation, upstreamModel: ctx.upstreamModel, attempt, method: call.method }));
        const outcome = await submit(request, channel, adapter, call, span);
        settled = true;
        if ('upstreamId' in outcome || outcome.next === 'final') {
          attemptAnswered(gateway, channel.name, sentAt);
          if ('upstreamId' in outcome) return { channel, upstreamId: outcome.upstreamId };
          throw outcome.error;
        }
        lastError = outcome.error;
        attemptFailed(gateway, channel.name, sentAt, undefined, lastError.message);
        if (outcome.next === 'next-channel' || attempt > channel.maxRetries || circuits.isOpen(channel.name)) break;
        const delay = retryDelayMs(retryPolicy, attempt, lastError.retryAfterSeconds);
        if (delay === undefined) break;
        await sleep(delay);
      }
    } finally {
      if (!settled) circuits.release(channel.name);
    }
  }
  throw lastError ?? new GatewayError('GW_NO_CHANNEL', `No upstream channel is available for model '${model}'`);
}

/** One submission attempt; its client span (tracing on) ends with its outcome. */
async function submit(request: FastifyRequest, channel: Channel, adapter: VideoAdapter<unknown>, call: UpstreamCall, span: AttemptTrace | undefined): Promise<Outcome> {
  let response: UpstreamResponse;
  try {
    response = await request.server.gateway.upstream.send(channel, call, undefined, span?.headers);
  } catch (error) {
    const failure = isGatewayError(error) ? error : toTransportError(error, channel);
    span?.end(attemptSpanEnd({ status: undefined, errorType: failure.code }));
    return { error: failure, next: 'retry' };
  }
  const read = await readOutcome(response, adapter, channel);
  // The channel's credentials and host never reach the client, the log or the task (issue 34).
  const outcome = 'error' in read ? { ...read, error: redactError(read.error, channel.redact) } : read;
  span?.end(attemptSpanEnd({ status: response.status, errorType: 'error' in outcome ? outcome.error.code : undefined }));
  return outcome;
}

async function readOutcome(response: UpstreamResponse, adapter: VideoAdapter<unknown>, channel: Channel): Promise<Outcome> {
  if (response.status >= 400) {
    const error = adapter.fromUpstreamError(response.status, redactBody(await readErrorBody(response.body), channel.redact));
    const retryAfter = parseRetryAfter(response.headers['retry-after']);
    const withRetryAfter = retryAfter === undefined ? error : error.with({ retryAfterSeconds: retryAfter });
    const next = RETRYABLE_STATUSES.has(response.status) ? 'retry' : response.status === 401 || response.status === 403 ? 'next-channel' : 'final';
    return { error: withRetryAfter, next };
  }
  // From here a task may exist upstream: whatever goes wrong is final (no second submission).
  try {
    return adapter.fromCreateResponse(await response.body.json());
  } catch (error) {
    return { error: isGatewayError(error) ? error : new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a body that is not JSON', { cause: error }), next: 'final' };
  }
}
