import type { GatewayError } from '../errors.js';
import type { OutEvent, SseEvent } from './sse-event.js';
import type { UpstreamCall } from './upstream-call.js';
import type { Usage } from './usage.js';

/** Everything a pure translator may know besides the bodies. No clock reads, no secrets. */
export interface TranslateContext {
  /** The public model id the client asked for; echoed in responses. */
  model: string;
  /** The channel's name for that model upstream. */
  upstreamModel: string;
  /** Our id for this request, used to mint response ids where the upstream has none. */
  requestId: string;
  /** Unix seconds at admission. */
  now: number;
  /** Chat streams: the client asked for the final usage chunk (stream_options.include_usage). */
  includeUsage: boolean;
  /**
   * The client's request as it arrived, for same-protocol pass-through: its body text (sent on
   * with only the model name changed, so signed thinking blocks survive byte for byte), the
   * protocol headers to forward (`anthropic-beta`…) and the query (`beta=true`).
   */
  passThrough?: ClientPassThrough | undefined;
  /**
   * The channel's `prompt_cache` setting (issue 33): `off` stops translators placing prompt-cache
   * marks the client did not send; absent means `auto`.
   */
  promptCache?: 'auto' | 'off' | undefined;
  /** The client did not ask to see reasoning (Anthropic `thinking` off): translations leave it out of the answer. */
  hidesReasoning?: boolean | undefined;
  /**
   * Embeddings: the vector encoding the client asked for and how many inputs this call carries (the
   * answer must have as many); `inputTokens` counts this call's inputs with the gateway's tokenizer,
   * for upstreams that report no usage (Gemini's batchEmbedContents).
   */
  vectors?: { encoding: 'float' | 'base64'; inputs: number; inputTokens?: (() => number) | undefined } | undefined;
}

export interface ClientPassThrough {
  /** The body's JSON text exactly as received. */
  text?: string | undefined;
  headers?: Readonly<Record<string, string>> | undefined;
  query?: Readonly<Record<string, string>> | undefined;
}

/** Created per streamed request; keeps its own typed state. */
export interface StreamTranslator {
  /** Translates one upstream event into zero or more events for the client. */
  onEvent(event: SseEvent): OutEvent[];
  /**
   * Optional fast path for same-protocol streams: the client's `data` text for a plain upstream
   * event (one `data:` line, no event name) made from its text alone, or undefined to send it
   * through `onEvent`. Must leave the translator as `onEvent` would have.
   */
  onPlainData?(data: string): string | undefined;
  /** Closing events the upstream did not send (e.g. `data: [DONE]`). */
  onEnd(): OutEvent[];
  /** Usage seen so far (final once onEnd has run). */
  usage(): Usage | undefined;
  /**
   * Optional closing events for a stream that fails after its first byte, for families whose
   * error events depend on the stream so far (Responses: sequence numbers, response id).
   * When absent, dispatch uses the family's stateless `renderError`.
   */
  onError?(error: GatewayError): OutEvent[];
  /** The id the answer carries, once an event has named it (Responses: the stored response's id, which a follow-up names). */
  answerId?(): string | undefined;
}

/** Upstream stream bytes → SSE text, read by read; a frame split across reads waits for its rest. */
export interface StreamBytesDecoder {
  /** The SSE text of the frames this read completed (empty while a frame is incomplete). Throws on a corrupt frame. */
  push(chunk: Buffer): Buffer;
  /** The upstream ended: throws when it stopped inside a frame. */
  end(): void;
}

/** One (endpoint family → vendor) pair: request out, response back, stream, errors. */
export interface TranslatorPair<Req, Res> {
  toUpstream(req: Req, ctx: TranslateContext): UpstreamCall;
  fromUpstream(res: unknown, ctx: TranslateContext): { body: Res; usage: Usage };
  /**
   * Optional fast path for same-protocol pairs: the client's body as text, made from the
   * upstream's text without parsing it all; undefined sends the body through `fromUpstream`.
   */
  fromUpstreamText?(text: string, ctx: TranslateContext): { text: string; usage: Usage } | undefined;
  /**
   * The same for bodies of megabytes (embeddings), on the chunks the upstream's body arrived in
   * (views, not to be edited): the client's body as chunks to send, never joined or decoded.
   * Tried before `fromUpstreamText`.
   */
  fromUpstreamChunks?(chunks: Buffer[], ctx: TranslateContext): { chunks: Buffer[]; usage: Usage } | undefined;
  createStreamTranslator(ctx: TranslateContext): StreamTranslator;
  /**
   * Only for upstreams whose streams are not SSE (Bedrock's binary event stream): turns the
   * upstream's bytes into SSE text before the relay sees them. Absent for SSE upstreams, whose
   * reads go to the relay untouched.
   */
  createStreamDecoder?(ctx: TranslateContext): StreamBytesDecoder;
  /** Maps an upstream error status and body to our error; never echoes upstream bodies raw. */
  fromUpstreamError(status: number, body: unknown): GatewayError;
  /**
   * A 404 on this pair's path says the server lacks the endpoint (a chat-only server asked for
   * /responses), not that the channel is broken: the request moves on, the channel's circuit is
   * not touched, and its other families keep being served (issue 33).
   */
  readonly endpointMayBeAbsent?: boolean;
}

/**
 * The pairs a vendor may offer, keyed by endpoint family. Each family module adds its own key by
 * declaration merging (`declare module '../../providers/types.js' { interface FamilyPairs … }`),
 * so this file never has to know the wire types of every protocol.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface FamilyPairs {}

export type PairFamily = keyof FamilyPairs;

/** The text (answer and reasoning) one client event carries, per family; for partial usage. */
export type StreamTextExtractor = (out: OutEvent) => string;

/** Maps an upstream stream event to the end of a stream with an error (family-specific). */
export type StreamErrorRenderer = (error: GatewayError) => OutEvent[];
