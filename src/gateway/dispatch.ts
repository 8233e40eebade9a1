import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../errors.js';
import type { FamilyPairs, PairFamily, StreamErrorRenderer, TranslateContext, TranslatorPair, Usage } from '../providers/types.js';
import type { Channel } from './channel.js';
import { routeModel } from './route-model.js';
import { readErrorBody, toTransportError, type UpstreamResponse } from './upstream-client.js';
import { parseSse } from './sse/parse.js';
import { SseWriter } from './sse/write.js';

type PairOf<F extends PairFamily> = FamilyPairs[F];
export type RequestOf<F extends PairFamily> = PairOf<F> extends TranslatorPair<infer Req, unknown> ? Req : never;
export type ResponseOf<F extends PairFamily> = PairOf<F> extends TranslatorPair<unknown, infer Res> ? Res : never;

export interface DispatchOptions<F extends PairFamily> {
  family: F;
  model: string;
  body: RequestOf<F>;
  request: FastifyRequest;
  reply: FastifyReply;
  /** Chat streams: the client asked for the usage chunk. */
  includeUsage?: boolean;
}

export interface DispatchResult<Res> {
  body: Res;
  usage: Usage;
  channel: Channel;
}

/** Upstream statuses worth trying on the next channel before anything reached the client. */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504, 529]);

/** Finds the channels for the model that offer this family, or explains why there are none. */
function candidatesFor<F extends PairFamily>(request: FastifyRequest, family: F, model: string): Array<{ channel: Channel; pair: PairOf<F> }> {
  const routed = routeModel(request.server.gateway.channels, model);
  const usable = routed.flatMap((channel) => {
    const pair = channel.provider.pairs[family] as PairOf<F> | undefined;
    return pair ? [{ channel, pair }] : [];
  });
  if (usable.length === 0) {
    throw routed.length === 0
      ? new GatewayError('GW_NO_CHANNEL', `No upstream channel is configured for model '${model}'`)
      : new GatewayError('GW_MODEL_UNSUPPORTED', `Model '${model}' is not available on this endpoint with the configured upstreams`);
  }
  return usable;
}

function contextFor(request: FastifyRequest, channel: Channel, model: string, includeUsage: boolean): TranslateContext {
  return {
    model,
    upstreamModel: channel.models[model]!,
    requestId: request.id,
    now: Math.floor(request.gw.startedAt / 1000),
    includeUsage,
  };
}

/** An AbortSignal that fires when the client goes away before the response is complete. */
function clientAbortSignal(request: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  request.raw.once('aborted', () => controller.abort());
  return controller.signal;
}

/**
 * Tries the model's channels in route order until one answers. Failures that are worth retrying
 * elsewhere (transport errors, 429, 5xx) move on to the next channel; others are final.
 */
async function sendWithFallback<F extends PairFamily>(
  options: DispatchOptions<F>,
  signal: AbortSignal,
  stream: boolean,
): Promise<{ response: UpstreamResponse; channel: Channel; pair: PairOf<F>; ctx: TranslateContext }> {
  const { request, family, model } = options;
  let lastError: GatewayError | undefined;
  for (const { channel, pair } of candidatesFor(request, family, model)) {
    const ctx = contextFor(request, channel, model, options.includeUsage ?? false);
    const typedPair = pair as unknown as TranslatorPair<RequestOf<F>, unknown>;
    const call = typedPair.toUpstream(options.body, ctx);
    call.stream = stream;
    try {
      const response = await request.server.gateway.upstream.send(channel, call, signal);
      request.gw.channel = channel.name;
      if (response.status < 400) return { response, channel, pair, ctx };
      const errorBody = await readErrorBody(response.body);
      lastError = withRetryAfter(typedPair.fromUpstreamError(response.status, errorBody), response);
      if (!RETRYABLE_STATUSES.has(response.status)) throw lastError;
    } catch (error) {
      if (signal.aborted) throw new GatewayError('GW_UPSTREAM_ERROR', 'The client closed the connection', { cause: error });
      if (isGatewayError(error) && error === lastError && !RETRYABLE_STATUSES.has(error.status)) throw error;
      lastError = isGatewayError(error) ? error : toTransportError(error, channel);
    }
  }
  throw lastError ?? new GatewayError('GW_NO_CHANNEL', `No upstream channel answered for model '${model}'`);
}

function withRetryAfter(error: GatewayError, response: UpstreamResponse): GatewayError {
  const header = response.headers['retry-after'];
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  if (error.status !== 429 || !Number.isFinite(seconds) || error.retryAfterSeconds !== undefined) return error;
  return new GatewayError(error.code, error.message, { retryAfterSeconds: seconds, param: error.param, cause: error.cause });
}

/** Non-streamed request: returns the translated body for the route to send (or post-process). */
export async function dispatchJson<F extends PairFamily>(options: DispatchOptions<F>): Promise<DispatchResult<ResponseOf<F>>> {
  const signal = clientAbortSignal(options.request, options.reply);
  const { response, channel, pair, ctx } = await sendWithFallback(options, signal, false);
  let upstreamBody: unknown;
  try {
    upstreamBody = await response.body.json();
  } catch (error) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a body that is not JSON', { cause: error });
  }
  const { body, usage } = (pair as unknown as TranslatorPair<unknown, ResponseOf<F>>).fromUpstream(upstreamBody, ctx);
  options.request.gw.usage = usage;
  if (channel.isSimulator) options.reply.header('x-simulator', channel.vendor);
  return { body, usage, channel };
}

/**
 * Streamed request: pipes upstream events through the pair's stream translator to the client.
 * Until the first event is written, failures are ordinary errors (and fall back); after that,
 * the family's error events end the stream. A client that leaves aborts the upstream at once.
 */
export async function dispatchStream<F extends PairFamily>(options: DispatchOptions<F> & { renderError: StreamErrorRenderer }): Promise<void> {
  const { request, reply } = options;
  const signal = clientAbortSignal(request, reply);
  const { response, channel, pair, ctx } = await sendWithFallback(options, signal, true);
  const translator = (pair as unknown as TranslatorPair<unknown, unknown>).createStreamTranslator(ctx);
  reply.hijack();
  const writer = new SseWriter(reply.raw);
  const headers: Record<string, string> = { 'x-request-id': request.id };
  if (channel.isSimulator) headers['x-simulator'] = channel.vendor;
  writer.open(headers);
  try {
    for await (const event of parseSse(response.body)) {
      const out = translator.onEvent(event);
      if (out.length > 0 && request.gw.firstTokenAt === undefined) request.gw.firstTokenAt = Date.now();
      await writer.write(out);
      if (writer.isClosed) break;
    }
    if (!writer.isClosed) await writer.write(translator.onEnd());
  } catch (error) {
    const failure = isGatewayError(error)
      ? error
      : signal.aborted
        ? new GatewayError('GW_UPSTREAM_ERROR', 'The client closed the connection')
        : new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended unexpectedly', { cause: error });
    request.gw.streamError = failure;
    if (!writer.isClosed) await writer.write(options.renderError(failure));
  } finally {
    request.gw.usage = translator.usage();
    if (writer.isClosed && !response.body.destroyed) response.body.destroy();
    writer.end();
  }
}
