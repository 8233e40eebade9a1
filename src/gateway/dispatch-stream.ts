import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, isGatewayError } from '../errors.js';
import type { PairFamily } from '../contracts/translator.js';
import type { Usage } from '../contracts/usage.js';
import { formatEvents } from '../sse/relay.js';
import type { SseWriter } from '../sse/write.js';
import { openClientStream } from './client-stream.js';
import { attemptSpanEnd } from '../telemetry/attempt-span.js';
import type { Cancellation } from './cancellation.js';
import type { Channel } from './channel.js';
import { clientGoneOf, sendWithFallback } from './dispatch-attempts.js';
import type { Attempt, DispatchOptions, PrimedStream, StreamOptions } from './dispatch-types.js';
import { nextRead } from './stream-priming.js';
import type { UpstreamBody } from './upstream-body.js';
import { redactError } from './channel-redactor.js';
import { openCacheSlot } from './response-cache-dispatch.js';
import { replayCachedStream, storeStream } from './response-cache-stream.js';

/** The client's side of a stream: the SSE writer and the text sent through it. */
class ClientStream {
  /** The text sent, one flat string per write: read back only if the upstream never reports usage. */
  readonly sent: string[] = [];
  /** The error event that ended the stream, if one did. */
  errorText = '';

  constructor(
    private readonly request: FastifyRequest,
    readonly writer: SseWriter,
  ) {}

  /** Writes one read's translation; a promise only while the client's socket is full. */
  send(text: string): Promise<void> | undefined {
    if (text === '' || this.writer.isClosed) return undefined;
    if (this.request.gw.firstTokenAt === undefined) this.request.gw.firstTokenAt = Date.now();
    this.sent.push(text);
    return this.writer.write(text);
  }
}

/**
 * A streamed request: the attempt loop primes a channel's stream, then its events are relayed to
 * the client as they arrive. After the head is sent, a failure becomes the family's error event.
 */
export async function dispatchStream<F extends PairFamily>(options: DispatchOptions<F> & StreamOptions): Promise<void> {
  const caching = options.cache && { family: options.family, model: options.model, request: options.request, reply: options.reply, ...options.cache };
  const slot = caching ? await openCacheSlot(caching) : undefined;
  if (slot?.hit) return replayCachedStream(options, slot.hit, caching!.codec);
  const cancel = clientGoneOf(options);
  const attempt = await sendWithFallback(options, cancel, true);
  const primed = attempt as Attempt<F> & PrimedStream;
  const answerId = options.onAnswerId && primed.translator.answerId?.();
  if (answerId) await rememberAnswer(options, attempt, answerId);
  const out = new ClientStream(options.request, openClientStream(options.request, options.reply, attempt.channel));
  try {
    await relayStream(primed, attempt.response.body, out);
  } catch (error) {
    const failure = streamFailureOf(error, cancel);
    const redacted = redactError(failure, attempt.channel.redact);
    options.request.gw.streamError = redacted;
    out.errorText = formatEvents(primed.translator.onError?.(redacted) ?? options.renderError(redacted));
    if (!out.writer.isClosed) await out.writer.write(out.errorText);
  } finally {
    finishStream(options, primed, out);
    if (slot && caching && !options.request.gw.streamError) storeStream(caching, slot, out.sent.join(''), options.includeUsage === true);
  }
}

/** The stream's answer id remembered; a failure to remember is logged, the stream still served (its follow-up gets the clear 400). */
async function rememberAnswer<F extends PairFamily>(options: DispatchOptions<F>, attempt: Attempt<F>, answerId: string): Promise<void> {
  try {
    await options.onAnswerId!(attempt.channel, answerId);
  } catch (error) {
    options.request.log.error({ err: error, channel: attempt.channel.name }, 'could not remember the channel of a stored response');
  }
}


/** Sends the primed text, then each read's translation, then the translator's closing events. */
async function relayStream({ relay, firstText, translator }: PrimedStream, body: UpstreamBody, out: ClientStream): Promise<void> {
  let drained: Promise<void> | undefined;
  if ((drained = out.send(firstText))) await drained;
  for (let chunk = relay.failure === undefined ? await nextRead(body) : null; chunk && !out.writer.isClosed; chunk = await nextRead(body)) {
    if ((drained = out.send(relay.push(chunk)))) await drained;
    if (relay.failure !== undefined) break;
  }
  if (!out.writer.isClosed && relay.failure === undefined) {
    if ((drained = out.send(relay.flush()))) await drained;
  }
  // Every event before the failing one has been sent; now the failure itself.
  if (relay.failure !== undefined) throw relay.failure;
  if (!out.writer.isClosed) {
    if ((drained = out.send(formatEvents(translator.onEnd())))) await drained;
  }
}

function streamFailureOf(error: unknown, cancel: Cancellation): GatewayError {
  if (isGatewayError(error)) return error;
  if (cancel.cancelled) return new GatewayError('GW_CLIENT_CLOSED', 'The client closed the connection');
  if ((error as { code?: string }).code === 'UND_ERR_BODY_TIMEOUT') return new GatewayError('GW_UPSTREAM_TIMEOUT', 'The upstream stream went silent for too long', { cause: error });
  return new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended unexpectedly', { cause: error });
}

/** The upstream's usage with no fewer output tokens than the relayed text's estimate. */
function atLeastRelayed(reported: Usage, relayed: Usage): Usage {
  if (relayed.completionTokens <= reported.completionTokens) return reported;
  return { ...reported, completionTokens: relayed.completionTokens, totalTokens: reported.promptTokens + relayed.completionTokens };
}

/**
 * The stream's usage (the upstream's, or, when it never reported any, what the usage recorder
 * bills for what was relayed), the logged body, the attempt's span, and the end of both sides.
 */
function finishStream<F extends PairFamily>(options: DispatchOptions<F> & StreamOptions, attempt: Attempt<F> & PrimedStream, out: ClientStream): void {
  const { request } = options;
  const gateway = request.server.gateway;
  const reported = attempt.translator.usage();
  const relayed = () => gateway.usage.usageOfRelayed({ facts: options.request.gw.facts, sent: out.sent, deliveredText: options.deliveredText });
  // A cut or abandoned stream: the upstream's count may stop at its first event (Anthropic's
  // message_start says output_tokens: 1) although deltas were relayed; bill what was sent (issue 33).
  request.gw.usage = reported === undefined ? relayed() : request.gw.streamError === undefined ? reported : atLeastRelayed(reported, relayed());
  // Body logging (the request log) keeps the stream as the client got it.
  if (gateway.requestLog.settings.bodies) request.gw.responseText = out.sent.join('') + out.errorText;
  attempt.span?.end(attemptSpanEnd({ status: attempt.response.status, errorType: request.gw.streamError?.code, usage: request.gw.usage }));
  if (out.writer.isClosed) attempt.response.body.destroy();
  out.writer.end();
}
