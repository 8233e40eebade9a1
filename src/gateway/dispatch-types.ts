import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FamilyPairs, PairFamily, StreamErrorRenderer, StreamTextExtractor, StreamTranslator, TranslateContext, TranslatorPair } from '../contracts/translator.js';
import type { Usage } from '../contracts/usage.js';
import type { SseRelay } from '../sse/relay.js';
import type { AttemptTrace } from '../telemetry/tracing.js';
import type { Channel } from './channel.js';
import type { UpstreamResponse } from './upstream-client.js';
import type { ResponseCacheCodec } from '../contracts/response-cache.js';

/** The types the dispatch files share (the attempt loop, stream priming, the JSON and stream replies). */
export type PairOf<F extends PairFamily> = FamilyPairs[F];
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
  /**
   * Streams: called once the stream is primed, before anything is sent, with the channel and the
   * id its answer carries (the translator's `answerId`), so a follow-up naming it finds the channel.
   */
  onAnswerId?: (channel: Channel, answerId: string) => Promise<void>;
  /** What translators may know of the client's own request (TranslateContext). */
  client?: Pick<TranslateContext, 'passThrough' | 'hidesReasoning' | 'vectors'>;
}

export interface DispatchResult<Res> {
  body: Res;
  usage: Usage;
  channel: Channel;
}

export interface StreamOptions {
  renderError: StreamErrorRenderer;
  /** Reads the text of each event sent, so a stream that ends without upstream usage is still accounted. */
  deliveredText: StreamTextExtractor;
  /** The response cache's view of the family's stream (issue 32); absent: the stream is never cached. */
  cache?: { codec: Required<ResponseCacheCodec>; keyExtra?: string | undefined } | undefined;
}

/** A stream primed to its first complete event and translated that far, nothing sent yet. */
export interface PrimedStream {
  /** The relay, already fed what the upstream sent up to its first complete event. */
  relay: SseRelay;
  /** The client text of those first reads (not sent yet). */
  firstText: string;
  /** The translator the relay feeds (its onEnd and usage close the stream). */
  translator: StreamTranslator;
}

/** The attempt that answered: its response, channel and translator pair, and for streams the primed start. */
export type Attempt<F extends PairFamily> = Partial<PrimedStream> & {
  response: UpstreamResponse;
  channel: Channel;
  pair: PairOf<F>;
  ctx: TranslateContext;
  /** The attempt's client span (tracing on): ended once its body is read, with the usage. */
  span?: AttemptTrace | undefined;
};
