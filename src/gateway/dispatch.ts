import { GatewayError, isGatewayError } from '../errors.js';
import type { PairFamily, TranslateContext, TranslatorPair } from '../contracts/translator.js';
import type { Usage } from '../contracts/usage.js';
import type { Channel } from './channel.js';
import { attemptSpanEnd } from '../telemetry/attempt-span.js';
import { clientGoneOf, sendWithFallback } from './dispatch-attempts.js';
import { JsonChunks } from './json-chunks.js';
import type { DispatchOptions, DispatchResult, ResponseOf } from './dispatch-types.js';

/**
 * Sends a model request upstream and answers it: the attempt loop (dispatch-attempts.ts) picks the
 * channel, retries and falls back; a JSON answer is translated here, a stream relayed by
 * dispatch-stream.ts.
 */
export { dispatchStream } from './dispatch-stream.js';
export type { DispatchOptions, DispatchResult, RequestOf, ResponseOf, StreamOptions } from './dispatch-types.js';

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
  if (translated.body instanceof JsonChunks) options.reply.header('content-length', translated.body.byteLength);
  return translated.body;
}

/** How an upstream's JSON body (its chunks) becomes the client's answer; module functions, not a closure per request. */
type Translate<Res, T> = (chunks: Buffer[], pair: TranslatorPair<unknown, Res>, ctx: TranslateContext) => T;

const textOf = (chunks: Buffer[]): string => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');

const wholeBody = <Res>(chunks: Buffer[], pair: TranslatorPair<unknown, Res>, ctx: TranslateContext) => translateBody(pair, textOf(chunks), ctx);

/**
 * A same-protocol pair's fast path (`isText`: the body is the client's JSON, as text or as
 * JsonChunks) where it has one, else the translated body.
 */
function fastOrWholeBody<Res>(chunks: Buffer[], pair: TranslatorPair<unknown, Res>, ctx: TranslateContext): { body: unknown; usage: Usage; isText?: boolean } {
  const relayed = pair.fromUpstreamChunks?.(chunks, ctx);
  if (relayed) return { body: new JsonChunks(relayed.chunks), usage: relayed.usage, isText: true };
  const text = textOf(chunks);
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
    const translated = translate(await response.body.allChunks(), pair as unknown as TranslatorPair<unknown, ResponseOf<F>>, ctx);
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
