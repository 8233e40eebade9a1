import type { AssetAdapter } from '../contracts/asset-adapter.js';
import type { FamilyPairs } from '../contracts/translator.js';
import type { ChannelCredentials, SignableRequest } from '../contracts/upstream-call.js';
import type { VideoSurfaceAdapters } from '../contracts/video-adapter.js';
import type { SimulatorLoader } from '../simulator/server.js';

/** Vendor ids; folder names under src/providers/ match shared/protocols/ file names. */
export type VendorId = 'openai' | 'volcengine-ark' | 'zhipu' | 'anthropic' | 'gemini' | 'alibaba-dashscope' | 'kling';

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
  /** Asynchronous video-task translators, by surface (only vendors that create video tasks). */
  readonly video?: Partial<VideoSurfaceAdapters>;
  /** An upstream asset library (vendors that have one); without a channel, assets stay local. */
  readonly asset?: AssetAdapter;
  /** The built-in fake upstream speaking this vendor's protocol, imported when it is first asked for. */
  readonly simulator: SimulatorLoader;
}
