import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../errors.js';
import type { FamilyPairs, PairFamily, StreamErrorRenderer, StreamTextExtractor, StreamTranslator, TranslateContext, TranslatorPair } from '../contracts/translator.js';
import type { Usage } from '../contracts/usage.js';
import { partialStreamUsage } from '../usage/partial-usage.js';
import type { Channel } from './channel.js';
import { routeModelOffering } from './route-model.js';
import { conversationOf, stickyOrder } from './sticky-route.js';
import { parseRetryAfter, retryDelayMs, RETRYABLE_STATUSES } from './retry-policy.js';
import { readErrorBody, toTransportError, type UpstreamResponse } from './upstream-client.js';
import type { UpstreamBody } from './upstream-body.js';
import { ClientGone, pause, type Cancellation } from './cancellation.js';
import { SseDecoder } from '../sse/parse.js';
import { SseRelay, formatEvents } from '../sse/relay.js';
import { SseWriter } from '../sse/write.js';
import { serializeInTurns } from './serialize-in-turns.js';
import { attemptAnswered, attemptFailed } from './attempt-outcome.js';
import { noteAttempt } from '../requests/attempts.js';
import type { AttemptTrace } from '../telemetry/tracing.js';
import { attemptSpanEnd, attemptSpanStart } from '../telemetry/attempt-span.js';

type PairOf<F extends PairFamily> = FamilyPairs[F];
// Read from the request and answer halves alone, so pairs without streams (embeddings, rerank) dispatch too.
export type RequestOf<F extends PairFamily> = PairOf<F> extends Pick<TranslatorPair<infer Req, unknown>, 'toUpstream'> ? Req : never;
export type ResponseOf<F extends PairFamily> = PairOf<F> extends Pick<TranslatorPair<unknown, infer Res>, 'fromUpstream'> ? Res : never;

export interface DispatchOptions<F extends PairFamily> {
  family: F;
  model: string;
  body: RequestOf<F>;
  request: FastifyRequest;
  reply: FastifyReply;
  /** Chat streams: the client asked for the usage chunk. */
  includeUsage?: boolean;
  /** Channels to try instead of the model's routes (an operator's channel test). */
  channels?: readonly Channel[];
  /** What translators may know of the client's own request (TranslateContext). */
  client?: Pick<TranslateContext, 'passThrough' | 'hidesReasoning' | 'vectors'>;
}

export interface DispatchResult<Res> {
  body: Res;
  usage: Usage;
  channel: Channel;
}

function contextFor(request: FastifyRequest, channel: Channel, model: string, includeUsage: boolean, client: DispatchOptions<PairFamily>['client']): TranslateContext {
  const ctx: TranslateContext = {
    model,
    upstreamModel: channel.models[model]!,
    requestId: request.id,
    now: Math.floor(request.gw.startedAt / 1000),
    includeUsage,
  };
  return client ? Object.assign(ctx, client) : ctx;
}

type Attempt<F extends PairFamily> = {
  response: UpstreamResponse;
  channel: Channel;
  pair: PairOf<F>;
  ctx: TranslateContext;
  /** Streams: the relay, already fed what the upstream sent up to its first complete event. */
  relay?: SseRelay;
  /** Streams: the client text of those first reads (not sent yet). */
  firstText?: string;
  /** Streams: the translator the relay feeds (its onEnd and usage close the stream). */
  translator?: StreamTranslator;
  /** The attempt's client span (tracing on): ended once its body is read, with the usage. */
  span?: AttemptTrace | undefined;
};

/** A blank line in SSE's line-end conventions: an event is complete once one arrived. */
const EVENT_ENDS = ['\n\n', '\r\r', '\r\n\r\n'];

/** Whether `chunk` completes an event; `tail` is the end of the reads before it (a blank line may span two reads). */
function completesEvent(tail: Buffer | undefined, chunk: Buffer): boolean {
  const joined = tail ? Buffer.concat([tail, chunk.subarray(0, 3)]) : undefined;
  return EVENT_ENDS.some((end) => chunk.includes(end) || (joined !== undefined && joined.includes(end)));
}

/**
 * Reads a stream until its first complete event, within the channel's first-byte timeout. Until
 * it arrives nothing has been sent to the client, so a silent or broken upstream can still be
 * retried or replaced. Returns the reads (the relay translates them once a channel is settled).
 */
async function primeStream(response: UpstreamResponse, channel: Channel): Promise<Buffer[]> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    response.body.destroy();
  }, channel.timeouts.firstByteMs);
  const reads: Buffer[] = [];
  try {
    for (;;) {
      const chunk = await nextRead(response.body);
      if (timedOut) throw new GatewayError('GW_UPSTREAM_TIMEOUT', 'The upstream provider sent no event in time');
      if (!chunk) return reads;
      const tail = reads.at(-1)?.subarray(-3);
      reads.push(chunk);
      if (completesEvent(tail, chunk)) return reads;
    }
  } catch (error) {
    response.body.destroy();
    throw isGatewayError(error) ? error : toTransportError(error, channel);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the upstream answered JSON where a stream was asked for (an error, whatever the status). */
function isJsonAnswer(response: UpstreamResponse): boolean {
  const type = response.headers['content-type'];
  return typeof type === 'string' && type.includes('application/json');
}

/**
 * Primes a stream (its first complete event, within first_byte_ms) and translates those reads,
 * so an upstream whose first event is already its error can still be retried or replaced.
 */
async function openStream(response: UpstreamResponse, channel: Channel, pair: TranslatorPair<unknown, unknown>, ctx: TranslateContext) {
  const primed = await primeStream(response, channel);
  const translator = pair.createStreamTranslator(ctx);
  const relay = new SseRelay(translator);
  let firstText = '';
  for (const chunk of primed) firstText += relay.push(chunk);
  return { translator, relay, firstText, failedBeforeOutput: relay.failure !== undefined && firstText === '' };
}

/** The upstream's next read (all that arrived since the last one), or null at the end. */
async function nextRead(body: UpstreamBody): Promise<Buffer | null> {
  for (;;) {
    const chunk = body.read();
    if (chunk || body.finished) return chunk;
    await body.readable();
  }
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

/**
 * Tries the model's channels in route order, skipping open circuits. Retryable failures
 * (transport errors, timeouts, 408/429/5xx/529) are retried on the same channel with backoff and
 * jitter, honouring Retry-After, up to the channel's `max_retries`; then the next channel is
 * tried. A final upstream 4xx goes back to the client at once. Nothing has reached the client
 * yet at this point, so falling back is always safe.
 */
async function sendWithFallback<F extends PairFamily>(options: DispatchOptions<F>, cancel: Cancellation, stream: boolean): Promise<Attempt<F>> {
  const { request, family, model } = options;
  const gateway = request.server.gateway;
  const { upstream, circuits, retryPolicy } = gateway;
  const candidates = routeModelOffering(options.channels ?? gateway.channels, model, (channel) => channel.provider.pairs[family] as PairOf<F> | undefined, family);
  const closed = circuits.anyTripped ? candidates.filter(({ channel }) => !circuits.isOpen(channel.name)) : candidates;
  // With every circuit open, trying anyway beats refusing outright.
  let ordered = closed.length > 0 ? closed : candidates;
  if (ordered.length > 1 && gateway.config.file.routing?.sticky_sessions !== false) {
    ordered = stickyOrder(ordered, conversationOf(request.headers, options.body, request.gw.key?.id));
  }
  let lastError: GatewayError | undefined;
  for (const { channel, offer: pair } of ordered) {
    if (closed.length > 0 && !circuits.tryAcquire(channel.name)) continue;
    // Every way out of this channel's attempts settles its circuit: success, failure, or release.
    let settled = false;
    if (lastError) request.gw.fallbacks++;
    try {
      const ctx = contextFor(request, channel, model, options.includeUsage ?? false, options.client);
      const typedPair = pair as unknown as TranslatorPair<RequestOf<F>, unknown>;
      const call = typedPair.toUpstream(options.body, ctx);
      call.stream = stream;
      // Serialised once for all attempts on this channel; a large body in slices, turn by turn.
      if (request.gw.largeBody && call.body !== undefined && typeof call.body !== 'string') call.body = await serializeInTurns(call.body);
      for (let attempt = 1; ; attempt++) {
        request.gw.channel = channel.name;
        if (attempt > 1) request.gw.retries++;
        let status: number | undefined;
        const sentAt = Date.now();
        const span = request.gw.trace?.startAttempt(attemptSpanStart({ channel, family: request.gw.family ?? 'chat-completions', upstreamModel: ctx.upstreamModel, attempt, method: call.method }));
        let answered: number | undefined;
        try {
          const response = await upstream.send(channel, call, cancel, span?.headers);
          answered = response.status;
          if (response.status < 400 && !(stream && isJsonAnswer(response))) {
            const first = stream ? await openStream(response, channel, typedPair, ctx) : undefined;
            if (!first?.failedBeforeOutput) {
              attemptAnswered(gateway, channel.name, sentAt);
              // Only after a failed try: a first-try answer keeps no list and allocates nothing.
              if (request.gw.attempts) request.gw.attempts = noteAttempt(request.gw.attempts, { channel: channel.name, status: answered, latency_ms: Date.now() - sentAt, error_code: null, error_message: null });
              settled = true;
              return { response, channel, pair, ctx, span, ...first };
            }
            // The upstream's first event was its error: nothing reached the client, so this is a
            // failed attempt like any other (retry, then fall back), not a 200 with a lone error.
            response.body.destroy();
            lastError = isGatewayError(first.relay.failure) ? first.relay.failure : new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream sent a stream event that could not be read');
          } else {
            // A stream request answered with JSON (`200 {"error":…}`) failed the same way.
            status = response.status < 400 ? undefined : response.status;
            const mapped = typedPair.fromUpstreamError(response.status < 400 ? 502 : response.status, await readErrorBody(response.body));
            lastError = withRetryAfter(mapped, response);
          }
        } catch (error) {
          if (cancel.cancelled) {
            const gone = new GatewayError('GW_UPSTREAM_ERROR', 'The client closed the connection', { cause: error });
            span?.end(attemptSpanEnd({ status: answered, errorType: gone.code }));
            throw gone;
          }
          lastError = isGatewayError(error) ? error : toTransportError(error, channel);
        }
        span?.end(attemptSpanEnd({ status: answered, errorType: lastError.code }));
        const failure = { channel: channel.name, status: answered ?? null, latency_ms: Date.now() - sentAt, error_code: lastError.kind.publicCode, error_message: lastError.message };
        request.gw.attempts = noteAttempt(request.gw.attempts, failure);
        const verdict = verdictFor(lastError, status);
        settled = true;
        // The channel's name stays with the operator (log, metrics), never in the client's error.
        request.log.warn({ channel: channel.name, attempt, status, code: lastError.code, verdict }, 'upstream attempt failed');
        if (verdict === 'final') {
          // The upstream answered; the request was the client's problem, not the channel's.
          attemptAnswered(gateway, channel.name, sentAt);
          throw lastError;
        }
        attemptFailed(gateway, channel.name, sentAt, status, lastError.message);
        if (verdict === 'next-channel' || attempt > channel.maxRetries || circuits.isOpen(channel.name)) break;
        const delay = retryDelayMs(retryPolicy, attempt, lastError.retryAfterSeconds);
        if (delay === undefined) break;
        await pause(delay, cancel);
        if (cancel.cancelled) throw new GatewayError('GW_UPSTREAM_ERROR', 'The client closed the connection');
      }
    } finally {
      if (!settled) circuits.release(channel.name);
    }
  }
  throw lastError ?? new GatewayError('GW_NO_CHANNEL', `No upstream channel is available for model '${model}'`);
}

function withRetryAfter(error: GatewayError, response: UpstreamResponse): GatewayError {
  const seconds = parseRetryAfter(response.headers['retry-after']);
  if (seconds === undefined || error.retryAfterSeconds !== undefined) return error;
  return new GatewayError(error.code, error.message, { retryAfterSeconds: seconds, param: error.param, vendorCode: error.vendorCode, cause: error.cause });
}

/** Non-streamed request: returns the translated body for the route to send (or post-process). */
export async function dispatchJson<F extends PairFamily>(options: DispatchOptions<F>): Promise<DispatchResult<ResponseOf<F>>> {
  const { translated, channel } = await exchangeJson(options, wholeBody);
  options.request.gw.usage = translated.usage;
  return { body: translated.body, usage: translated.usage, channel };
}

/**
 * Non-streamed request answered as is: the route returns what this returns. Same-protocol pairs
 * with a text fast path skip parsing and re-serialising the upstream's body.
 */
export async function dispatchJsonReply<F extends PairFamily>(options: DispatchOptions<F>): Promise<unknown> {
  const { translated } = await exchangeJson(options, fastOrWholeBody);
  options.request.gw.usage = translated.usage;
  if (translated.isText) options.reply.type('application/json; charset=utf-8');
  return translated.body;
}

/** How an upstream's JSON text becomes the client's answer; module functions, not a closure per request. */
type Translate<Res, T> = (text: string, pair: TranslatorPair<unknown, Res>, ctx: TranslateContext) => T;

const wholeBody = <Res>(text: string, pair: TranslatorPair<unknown, Res>, ctx: TranslateContext) => translateBody(pair, text, ctx);

/** A same-protocol pair's text fast path (`isText`) where it has one, else the translated body. */
function fastOrWholeBody<Res>(text: string, pair: TranslatorPair<unknown, Res>, ctx: TranslateContext): { body: unknown; usage: Usage; isText?: boolean } {
  const fast = pair.fromUpstreamText?.(text, ctx);
  return fast ? { body: fast.text, usage: fast.usage, isText: true } : translateBody(pair, text, ctx);
}

/** Sends with fallback, reads the body and translates it; the attempt's span ends with the usage. */
async function exchangeJson<F extends PairFamily, T extends { usage: Usage }>(
  options: DispatchOptions<F>,
  translate: Translate<ResponseOf<F>, T>,
): Promise<{ translated: T; channel: Channel }> {
  const { response, channel, pair, ctx, span } = await sendWithFallback(options, clientGoneOf(options), false);
  if (channel.isSimulator) options.reply.header('x-simulator', channel.vendor);
  try {
    const translated = translate(await response.body.text(), pair as unknown as TranslatorPair<unknown, ResponseOf<F>>, ctx);
    span?.end(attemptSpanEnd({ status: response.status, usage: translated.usage }));
    return { translated, channel };
  } catch (error) {
    span?.end(attemptSpanEnd({ status: response.status, errorType: isGatewayError(error) ? error.code : 'GW_UPSTREAM_ERROR' }));
    throw error;
  }
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
  const cancel = clientGoneOf(options);
  const attempt = await sendWithFallback(options, cancel, true);
  const { response, channel } = attempt;
  const relay = attempt.relay!;
  const translator = attempt.translator!;
  reply.hijack();
  const writer = new SseWriter(reply.raw);
  // The reply's own headers (x-ratelimit-*) go out with the stream's head.
  const headers: Record<string, unknown> = reply.getHeaders();
  headers['x-request-id'] = request.id;
  if (channel.isSimulator) headers['x-simulator'] = channel.vendor;
  writer.open(headers);
  /** The text sent, one flat string per write: read back only if the upstream never reports usage. */
  const sent: string[] = [];
  /** Writes one read's translation; a promise only while the client's socket is full. */
  const send = (text: string): Promise<void> | undefined => {
    if (text === '' || writer.isClosed) return undefined;
    if (request.gw.firstTokenAt === undefined) request.gw.firstTokenAt = Date.now();
    sent.push(text);
    return writer.write(text);
  };
  /** The error event that ended the stream, if one did. */
  let errorText = '';
  try {
    let drained: Promise<void> | undefined;
    if ((drained = send(attempt.firstText!))) await drained;
    for (let chunk = relay.failure === undefined ? await nextRead(response.body) : null; chunk && !writer.isClosed; chunk = await nextRead(response.body)) {
      if ((drained = send(relay.push(chunk)))) await drained;
      if (relay.failure !== undefined) break;
    }
    if (!writer.isClosed && relay.failure === undefined) {
      if ((drained = send(relay.flush()))) await drained;
    }
    // Every event before the failing one has been sent; now the failure itself.
    if (relay.failure !== undefined) throw relay.failure;
    if (!writer.isClosed) {
      if ((drained = send(formatEvents(translator.onEnd())))) await drained;
    }
  } catch (error) {
    const failure = isGatewayError(error)
      ? error
      : cancel.cancelled
        ? new GatewayError('GW_UPSTREAM_ERROR', 'The client closed the connection')
        : (error as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT'
          ? new GatewayError('GW_UPSTREAM_TIMEOUT', 'The upstream stream went silent for too long', { cause: error })
          : new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended unexpectedly', { cause: error });
    request.gw.streamError = failure;
    errorText = formatEvents(translator.onError?.(failure) ?? options.renderError(failure));
    if (!writer.isClosed) await writer.write(errorText);
  } finally {
    request.gw.usage = translator.usage() ?? partialStreamUsage(options.body, deliveredTexts(sent, options.deliveredText));
    // Body logging (the request log) keeps the stream as the client got it.
    if (request.server.gateway.requestLog.settings.bodies) request.gw.responseText = sent.join('') + errorText;
    attempt.span?.end(attemptSpanEnd({ status: response.status, errorType: request.gw.streamError?.code, usage: request.gw.usage }));
    if (writer.isClosed) response.body.destroy();
    writer.end();
  }
}

/** The text of each event that was sent (parsed back from the SSE written), for partial usage. */
function deliveredTexts(sent: readonly string[], extract: StreamTextExtractor): string[] {
  const decoder = new SseDecoder();
  const events = sent.flatMap((text) => decoder.feed(text));
  return [...events, ...decoder.end()].map(extract);
}

/**
 * The client's departure as a cancellation: the request's end state (its one close listener)
 * on model routes, a listener of its own otherwise.
 */
function clientGoneOf(options: { request: FastifyRequest; reply: FastifyReply }): Cancellation {
  return options.request.gw?.ending ?? new ClientGone(options.reply);
}
