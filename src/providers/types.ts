import type { GatewayError } from '../errors.js';
import type { SseEvent } from '../gateway/sse/parse.js';
import type { OutEvent } from '../gateway/sse/write.js';
import type { SimulatorLoader } from '../simulator/server.js';

/** Vendor ids; folder names under src/providers/ match shared/protocols/ file names. */
export type VendorId = 'openai' | 'volcengine-ark' | 'zhipu' | 'anthropic' | 'gemini' | 'alibaba-dashscope' | 'kling';

/** What a translator asks the upstream to do. Credentials are added by the vendor's endpoint.ts. */
export interface UpstreamCall {
  method: 'GET' | 'POST' | 'DELETE';
  /** Path relative to the channel's base URL, starting with '/'. */
  path: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** Serialised as JSON unless already a string. */
  body?: unknown;
  /** The response is an SSE stream. */
  stream?: boolean;
  /**
   * `request-signature`: credentials go into a signature over the whole request (the provider's
   * `signRequest`), not into static headers. Used by AK/SK-signed control-plane APIs.
   */
  auth?: 'headers' | 'request-signature';
}

/** The parts of an outgoing request a signature covers. */
export interface SignableRequest {
  method: string;
  url: URL;
  /** The exact body bytes that will be sent (JSON text). */
  body: string;
}

/**
 * Token and media usage of one request, as the gateway accounts it: OpenAI's convention, where the
 * prompt counts every input token (cache reads and writes included) and the completion every
 * output token (reasoning included). The optional parts say how much of each was billed apart
 * (issue 21); each vendor's usage mapping fills them from its own shape.
 */
export interface Usage {
  promptTokens: number;
  /** Includes reasoning tokens, as OpenAI counts them. */
  completionTokens: number;
  reasoningTokens: number;
  totalTokens: number;
  /** Of promptTokens: read from the prompt cache (OpenAI cached_tokens, Anthropic cache_read_input_tokens, Gemini cachedContentTokenCount). */
  cachedTokens?: number;
  /** Of promptTokens: written to the prompt cache (Anthropic's 5-minute writes, OpenAI's cache_write_tokens). */
  cacheWrite5mTokens?: number;
  /** Of promptTokens: written to Anthropic's 1-hour cache. */
  cacheWrite1hTokens?: number;
  /** Of promptTokens: image tokens (GPT image models, Gemini's IMAGE modality). */
  imageInputTokens?: number;
  /** Of completionTokens: image tokens (GPT image models, Gemini image models). */
  imageOutputTokens?: number;
  images?: number;
  videoSeconds?: number;
}

export const emptyUsage = (): Usage => ({ promptTokens: 0, completionTokens: 0, reasoningTokens: 0, totalTokens: 0 });

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
  /** The client did not ask to see reasoning (Anthropic `thinking` off): translations leave it out of the answer. */
  hidesReasoning?: boolean | undefined;
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
  createStreamTranslator(ctx: TranslateContext): StreamTranslator;
  /** Maps an upstream error status and body to our error; never echoes upstream bodies raw. */
  fromUpstreamError(status: number, body: unknown): GatewayError;
}

/**
 * The pairs a vendor may offer, keyed by endpoint family. Each family module adds its own key by
 * declaration merging (`declare module '../../providers/types.js' { interface FamilyPairs … }`),
 * so this file never has to know the wire types of every protocol.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface FamilyPairs {}

export type PairFamily = keyof FamilyPairs;

/** Channel credentials, resolved from ${ENV} references at start-up. */
export interface ChannelCredentials {
  apiKey?: string;
  accessKey?: string;
  secretKey?: string;
  /** The signing region for AK/SK-signed APIs (Volcengine's `cn-beijing`, BytePlus's `ap-southeast-1`). */
  region?: string;
}

/** Vendor facts the generic code needs, all in one object per vendor folder (index.ts). */
export interface ProviderModule {
  readonly vendor: VendorId;
  /**
   * The vendor's `gen_ai.provider.name` in traces where OpenTelemetry's GenAI conventions list
   * one that differs from `vendor`; `vendor` otherwise.
   */
  readonly genAiProviderName?: string;
  /** The public models this vendor serves by default, with their upstream names. */
  readonly defaultModels: Readonly<Record<string, string>>;
  /** Base URL of the real service, and the path prefix its simulator serves under. */
  readonly defaultBaseUrl: string;
  /**
   * Version segments the gateway itself puts after `base_url` (Anthropic's `/v1` of
   * `/v1/messages`): a `base_url` ending in one would double it, and is refused at start-up.
   * Empty where `base_url` carries the version (OpenAI's `…/v1`, Ark's `…/api/v3`).
   */
  readonly addedPathPrefixes: readonly string[];
  readonly simulatorBasePath: string;
  /**
   * Headers every call to this vendor carries unless the channel's `headers` set them (API
   * version pins such as `anthropic-version`): merged once when the channel is built.
   */
  readonly defaultHeaders?: Readonly<Record<string, string>>;
  /** Credential headers for one request (endpoint.ts is the only place that sees secrets). */
  authHeaders(credentials: ChannelCredentials, nowSeconds: number): Record<string, string>;
  /** Headers for calls with `auth: 'request-signature'` (AK/SK signing over method, URL and body). */
  signRequest?(credentials: ChannelCredentials, request: SignableRequest, nowMs: number): Record<string, string>;
  readonly pairs: Partial<FamilyPairs>;
  /** The built-in fake upstream speaking this vendor's protocol, imported when it is first asked for. */
  readonly simulator: SimulatorLoader;
}

/** The text (answer and reasoning) one client event carries, per family; for partial usage. */
export type StreamTextExtractor = (out: OutEvent) => string;

/** Maps an upstream stream event to the end of a stream with an error (family-specific). */
export type StreamErrorRenderer = (error: GatewayError) => OutEvent[];
