import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../errors.js';
import type { Channel } from '../gateway/channel.js';
import { routeModel } from '../gateway/route-model.js';
import { readErrorBody, toTransportError, type UpstreamResponse } from '../gateway/upstream-client.js';
import type { TranslateContext } from '../providers/types.js';
import { VideoTaskRepo } from './task-repo.js';
import type { VideoAdapter, VideoAdapterSurface, VideoSurfaceAdapters } from './video-adapter.js';
import type { VideoSurface, VideoTask } from './video-task.js';

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
  /** What the row keeps as the client request (defaults to `body`). */
  stored?: unknown;
  externalId?: string | null;
}

/** Statuses worth trying on the next channel: nothing was created upstream. */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504, 529]);

/** `asyntask_` + 24 hex characters (spec: "form asyntask_<suffix>"). */
export const newAsyncTaskId = (): string => `asyntask_${randomBytes(12).toString('hex')}`;

/**
 * Submits the task to the first channel of the model that accepts it (falling back on transport
 * errors, 429 and 5xx) and stores it as `queued`. The client leaving does not cancel the
 * submission: an upstream task that exists must have its row, or it could never be polled.
 */
export async function createVideoTask<S extends VideoAdapterSurface & VideoSurface>(options: CreateVideoTaskOptions<S>): Promise<VideoTask> {
  const { request, surface, model } = options;
  const deps = request.server.gateway;
  let lastError: GatewayError | undefined;
  for (const { channel, adapter } of candidatesFor(deps.channels, surface, model)) {
    const ctx: TranslateContext = { model, upstreamModel: channel.models[model]!, requestId: request.id, now: Math.floor(request.gw.startedAt / 1000), includeUsage: false };
    let response: UpstreamResponse;
    try {
      response = await deps.upstream.send(channel, adapter.toCreateRequest(options.body, ctx), AbortSignal.timeout(channel.timeouts.totalMs));
    } catch (error) {
      lastError = isGatewayError(error) ? error : toTransportError(error, channel);
      continue;
    }
    if (response.status >= 400) {
      lastError = adapter.fromUpstreamError(response.status, await readErrorBody(response.body));
      if (RETRYABLE_STATUSES.has(response.status)) continue;
      throw lastError;
    }
    const { upstreamId } = adapter.fromCreateResponse(await readJson(response.body));
    request.gw.channel = channel.name;
    const now = deps.now();
    return new VideoTaskRepo(deps.db).insert({
      id: options.id,
      keyId: request.gw.key!.id,
      surface,
      capability: options.capability,
      model,
      channel: channel.name,
      upstreamId,
      status: 'queued',
      progress: 0,
      request: options.stored ?? options.body,
      externalId: options.externalId ?? null,
      now,
      nextPollAt: now + 1_000,
    });
  }
  throw lastError ?? new GatewayError('GW_NO_CHANNEL', `No upstream channel answered for model '${model}'`);
}

function candidatesFor<S extends VideoAdapterSurface>(channels: readonly Channel[], surface: S, model: string): Array<{ channel: Channel; adapter: VideoAdapter<RequestOf<S>> }> {
  const routed = routeModel(channels, model);
  const usable = routed.flatMap((channel) => {
    const adapter = channel.provider.video?.[surface] as VideoAdapter<RequestOf<S>> | undefined;
    return adapter ? [{ channel, adapter }] : [];
  });
  if (usable.length === 0) {
    throw routed.length === 0
      ? new GatewayError('GW_NO_CHANNEL', `No upstream channel is configured for model '${model}'`)
      : new GatewayError('GW_MODEL_UNSUPPORTED', `Model '${model}' is not available on this endpoint with the configured upstreams`);
  }
  return usable;
}

async function readJson(body: { json(): Promise<unknown> }): Promise<unknown> {
  try {
    return await body.json();
  } catch (error) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a body that is not JSON', { cause: error });
  }
}
