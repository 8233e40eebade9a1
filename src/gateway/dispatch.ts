import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../errors.js';
import type { FamilyPairs, PairFamily, StreamErrorRenderer, StreamTextExtractor, TranslateContext, TranslatorPair, Usage } from '../providers/types.js';
import { partialStreamUsage } from '../usage/partial-usage.js';
import type { Channel } from './channel.js';
import { routeModelOffering } from './route-model.js';
import { parseRetryAfter, retryDelayMs, RETRYABLE_STATUSES } from './retry-policy.js';
import { readErrorBody, toTransportError, type UpstreamResponse } from './upstream-client.js';
import type { UpstreamBody } from './upstream-body.js';
import { ClientGone, pause, type Cancellation } from './cancellation.js';
import { SseDecoder, type SseEvent } from './sse/parse.js';
import { SseWriter, type OutEvent } from './sse/write.js';

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

function contextFor(request: FastifyRequest, channel: Channel, model: string, includeUsage: boolean): TranslateContext {
  return {
    model,
    upstreamModel: channel.models[model]!,
    requestId: request.id,
    now: Math.floor(request.gw.startedAt / 1000),
    includeUsage,
  };
}

type Attempt<F extends PairFamily> = {
  response: UpstreamResponse;
  channel: Channel;
  pair: PairOf<F>;
  ctx: TranslateContext;
  /** Streams: the upstream's events, the first one already read (it opened the fallback window's end). */
  events?: PrimedEvents;
};

interface PrimedEvents {
  /** The events of the upstream's first read (never empty unless the stream had none). */
  first: SseEvent[];
  decoder: SseDecoder;
}

/**
 * Reads a stream's first event within the channel's first-byte timeout. Until it arrives nothing
 * has been sent to the client, so a silent or broken upstream can still be retried or replaced.
 */
async function primeStream(response: UpstreamResponse, channel: Channel): Promise<PrimedEvents> {
  const decoder = new SseDecoder();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    response.body.destroy();
  }, channel.timeouts.firstByteMs);
  try {
    const first = await nextEvents(response.body, decoder);
    if (timedOut) throw new GatewayError('GW_UPSTREAM_TIMEOUT', `The upstream for channel '${channel.name}' sent no event in time`);
    return { first, decoder };
  } catch (error) {
    response.body.destroy();
    throw isGatewayError(error) ? error : toTransportError(error, channel);
  } finally {
    clearTimeout(timer);
  }
}

/** The events of the upstream's next read(s) — all that arrived since the last call — or [] at the end. */
async function nextEvents(body: UpstreamBody, decoder: SseDecoder): Promise<SseEvent[]> {
  for (;;) {
    const chunk = body.read();
    if (chunk) {
      const events = decoder.feed(chunk);
      if (events.length > 0) return events;
    } else if (body.finished) {
      return decoder.end();
    } else {
      await body.readable();
    }
  }
}

/** How a failed attempt continues: retry the same channel, move to the next, or stop here. */
type Verdict = 'retry' | 'next-channel' | 'final';

function verdictFor(error: GatewayError, status: number | undefined): Verdict {
  if (status === undefined) return error.code === 'GW_UPSTREAM_BAD_RESPONSE' ? 'next-channel' : 'retry';
  if (RETRYABLE_STATUSES.has(status)) return 'retry';
  // Our credentials for this account were refused: another account may still serve the request.
  if (status === 401 || status === 403) return 'next-channel';
  return 'final';
}

/**
 * Tries the model's channels in route order, skipping open circuits. Retryable failures
 * (transport errors, timeouts, 408/429/5xx/529) are retried on the same channel with backoff and
 * jitter, honouring Retry-After, up to the channel's `max_retries`; then the next channel is
 * tried. A final upstream 4xx goes back to the client at once. Nothing has reached the client
 * yet at this point, so falling back is always safe.
 */
async function sendWithFallback<F extends PairFamily>(options: DispatchOptions<F>, cancel: Cancellation, stream: boolean): Promise<Attempt<F>> {
  const { request, family, model } = options;
  const { upstream, circuits, retryPolicy } = request.server.gateway;
  const candidates = routeModelOffering(request.server.gateway.channels, model, (channel) => channel.provider.pairs[family] as PairOf<F> | undefined);
  const closed = candidates.filter(({ channel }) => !circuits.isOpen(channel.name));
  // With every circuit open, trying anyway beats refusing outright.
  const ordered = closed.length > 0 ? closed : candidates;
  let lastError: GatewayError | undefined;
  for (const { channel, offer: pair } of ordered) {
    if (closed.length > 0 && !circuits.tryAcquire(channel.name)) continue;
    const ctx = contextFor(request, channel, model, options.includeUsage ?? false);
    const typedPair = pair as unknown as TranslatorPair<RequestOf<F>, unknown>;
    const call = { ...typedPair.toUpstream(options.body, ctx), stream };
    for (let attempt = 1; ; attempt++) {
      request.gw.channel = channel.name;
      let status: number | undefined;
      try {
        const response = await upstream.send(channel, call, cancel);
        if (response.status < 400) {
          const events = stream ? await primeStream(response, channel) : undefined;
          circuits.onSuccess(channel.name);
          return { response, channel, pair, ctx, events };
        }
        status = response.status;
        const mapped = typedPair.fromUpstreamError(response.status, await readErrorBody(response.body));
        lastError = withRetryAfter(mapped, response);
      } catch (error) {
        if (cancel.cancelled) throw new GatewayError('GW_UPSTREAM_ERROR', 'The client closed the connection', { cause: error });
        lastError = isGatewayError(error) ? error : toTransportError(error, channel);
      }
      const verdict = verdictFor(lastError, status);
      if (verdict === 'final') {
        circuits.onSuccess(channel.name);
        throw lastError;
      }
      circuits.onFailure(channel.name);
      if (verdict === 'next-channel' || attempt > channel.maxRetries || circuits.isOpen(channel.name)) break;
      const delay = retryDelayMs(retryPolicy, attempt, lastError.retryAfterSeconds);
      if (delay === undefined) break;
      await pause(delay, cancel);
      if (cancel.cancelled) throw new GatewayError('GW_UPSTREAM_ERROR', 'The client closed the connection');
    }
  }
  throw lastError ?? new GatewayError('GW_NO_CHANNEL', `No upstream channel is available for model '${model}'`);
}

function withRetryAfter(error: GatewayError, response: UpstreamResponse): GatewayError {
  const seconds = parseRetryAfter(response.headers['retry-after']);
  if (seconds === undefined || error.retryAfterSeconds !== undefined) return error;
  return new GatewayError(error.code, error.message, { retryAfterSeconds: seconds, param: error.param, cause: error.cause });
}

/** Non-streamed request: returns the translated body for the route to send (or post-process). */
export async function dispatchJson<F extends PairFamily>(options: DispatchOptions<F>): Promise<DispatchResult<ResponseOf<F>>> {
  const { text, channel, pair, ctx } = await exchangeJson(options);
  const { body, usage } = translateBody(pair, text, ctx);
  options.request.gw.usage = usage;
  return { body, usage, channel };
}

/**
 * Non-streamed request answered as is: the route returns what this returns. Same-protocol pairs
 * with a text fast path skip parsing and re-serialising the upstream's body.
 */
export async function dispatchJsonReply<F extends PairFamily>(options: DispatchOptions<F>): Promise<unknown> {
  const { text, pair, ctx } = await exchangeJson(options);
  const fast = pair.fromUpstreamText?.(text, ctx);
  if (fast) {
    options.request.gw.usage = fast.usage;
    options.reply.type('application/json; charset=utf-8');
    return fast.text;
  }
  const { body, usage } = translateBody(pair, text, ctx);
  options.request.gw.usage = usage;
  return body;
}

async function exchangeJson<F extends PairFamily>(options: DispatchOptions<F>) {
  const { response, channel, pair, ctx } = await sendWithFallback(options, new ClientGone(options.reply), false);
  if (channel.isSimulator) options.reply.header('x-simulator', channel.vendor);
  const text = await response.body.text();
  return { text, channel, pair: pair as unknown as TranslatorPair<unknown, ResponseOf<F>>, ctx };
}

function translateBody<Res>(pair: TranslatorPair<unknown, Res>, text: string, ctx: TranslateContext): { body: Res; usage: Usage } {
  let upstreamBody: unknown;
  try {
    upstreamBody = JSON.parse(text);
  } catch (error) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a body that is not JSON', { cause: error });
  }
  return pair.fromUpstream(upstreamBody, ctx);
}

export interface StreamOptions {
  renderError: StreamErrorRenderer;
  /** Reads the text of each event sent, so a stream that ends without upstream usage is still accounted. */
  deliveredText: StreamTextExtractor;
}

export async function dispatchStream<F extends PairFamily>(options: DispatchOptions<F> & StreamOptions): Promise<void> {
  const { request, reply } = options;
  const cancel = new ClientGone(reply);
  const { response, channel, pair, ctx, events } = await sendWithFallback(options, cancel, true);
  const translator = (pair as unknown as TranslatorPair<unknown, unknown>).createStreamTranslator(ctx);
  reply.hijack();
  const writer = new SseWriter(reply.raw);
  const headers: Record<string, string> = { 'x-request-id': request.id };
  if (channel.isSimulator) headers['x-simulator'] = channel.vendor;
  writer.open(headers);
  /** What was sent, kept by reference: read only if the upstream never reports usage. */
  const sent: OutEvent[] = [];
  try {
    for (let batch = events!.first; batch.length > 0; batch = await nextEvents(response.body, events!.decoder)) {
      const out: OutEvent[] = [];
      for (const event of batch) for (const translated of translator.onEvent(event)) out.push(translated);
      if (out.length === 0) continue;
      if (request.gw.firstTokenAt === undefined) request.gw.firstTokenAt = Date.now();
      const drained = writer.write(out);
      if (drained) await drained;
      for (const event of out) sent.push(event);
      if (writer.isClosed) break;
    }
    if (!writer.isClosed) await writer.write(translator.onEnd());
  } catch (error) {
    const failure = isGatewayError(error)
      ? error
      : cancel.cancelled
        ? new GatewayError('GW_UPSTREAM_ERROR', 'The client closed the connection')
        : (error as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT'
          ? new GatewayError('GW_UPSTREAM_TIMEOUT', 'The upstream stream went silent for too long', { cause: error })
          : new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended unexpectedly', { cause: error });
    request.gw.streamError = failure;
    if (!writer.isClosed) await writer.write(translator.onError?.(failure) ?? options.renderError(failure));
  } finally {
    request.gw.usage = translator.usage() ?? partialStreamUsage(options.body, sent.map(options.deliveredText));
    if (writer.isClosed) response.body.destroy();
    writer.end();
  }
}
