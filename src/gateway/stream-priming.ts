import { GatewayError, isGatewayError } from '../errors.js';
import type { TranslateContext, TranslatorPair } from '../contracts/translator.js';
import { SseDecoder } from '../sse/parse.js';
import { SseRelay } from '../sse/relay.js';
import type { Channel } from './channel.js';
import type { UpstreamBody } from './upstream-body.js';
import { toTransportError, type UpstreamResponse } from './upstream-client.js';
import type { PrimedStream } from './dispatch-types.js';

const BLANK_LINE = '\n\n';

/**
 * Reads a stream until its first complete event (or comment: a keep-alive shows the upstream is
 * there), within the channel's first-byte timeout, as the one SSE decoder frames them. Until it
 * arrives nothing has been sent to the client, so a silent or broken upstream can still be retried
 * or replaced. Returns the reads (the relay translates them once a channel is settled).
 */
async function primeStream(response: UpstreamResponse, channel: Channel): Promise<Buffer[]> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    response.body.destroy();
  }, channel.timeouts.firstByteMs);
  const reads: Buffer[] = [];
  let sawComment = false;
  const decoder = new SseDecoder({ onComment: () => (sawComment = true) });
  // The relay parses these reads again; here only as far as the first blank line is needed (a read
  // often holds much of a fast stream), the rest only when that first block was not an event.
  const completesAnEvent = (chunk: Buffer): boolean => {
    const cut = chunk.indexOf(BLANK_LINE);
    if (cut >= 0 && cut + BLANK_LINE.length < chunk.length) {
      if (decoder.feed(chunk.subarray(0, cut + BLANK_LINE.length)).length > 0 || sawComment) return true;
      chunk = chunk.subarray(cut + BLANK_LINE.length);
    }
    return decoder.feed(chunk).length > 0 || sawComment;
  };
  try {
    for (;;) {
      const chunk = await nextRead(response.body);
      if (timedOut) throw new GatewayError('GW_UPSTREAM_TIMEOUT', 'The upstream provider sent no event in time');
      if (!chunk) return reads;
      reads.push(chunk);
      if (completesAnEvent(chunk)) return reads;
    }
  } catch (error) {
    response.body.destroy();
    throw isGatewayError(error) ? error : toTransportError(error, channel);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the upstream answered JSON where a stream was asked for (an error, whatever the status). */
export function isJsonAnswer(response: UpstreamResponse): boolean {
  const type = response.headers['content-type'];
  return typeof type === 'string' && type.includes('application/json');
}

/**
 * Primes a stream (its first complete event, within first_byte_ms) and translates those reads,
 * so an upstream whose first event is already its error can still be retried or replaced.
 */
export async function openStream(response: UpstreamResponse, channel: Channel, pair: TranslatorPair<unknown, unknown>, ctx: TranslateContext): Promise<PrimedStream & { failedBeforeOutput: boolean }> {
  if (pair.createStreamDecoder) response.body.decodeWith(pair.createStreamDecoder(ctx));
  const primed = await primeStream(response, channel);
  const translator = pair.createStreamTranslator(ctx);
  const relay = new SseRelay(translator);
  let firstText = '';
  for (const chunk of primed) firstText += relay.push(chunk);
  return { translator, relay, firstText, failedBeforeOutput: relay.failure !== undefined && firstText === '' };
}

/** The upstream's next read (all that arrived since the last one), or null at the end. */
export async function nextRead(body: UpstreamBody): Promise<Buffer | null> {
  for (;;) {
    const chunk = body.read();
    if (chunk || body.finished) return chunk;
    await body.readable();
  }
}
