import type { AssetAdapter } from '../contracts/asset-adapter.js';
import type { BatchAdapter } from '../contracts/batch-adapter.js';
import type { FamilyPairs } from '../contracts/translator.js';
import type { ChannelCredentials, SignableRequest, UpstreamCall } from '../contracts/upstream-call.js';
import type { VideoSurfaceAdapters } from '../contracts/video-adapter.js';
import type { SimulatorLoader } from '../simulator/server.js';
import type { ChannelFields } from './channel-fields.js';
import type { SheetVendor } from './price-rows.js';

/**
 * Vendor facts the generic code needs, all in one object per vendor folder (index.ts). `V` is the
 * vendor id, a folder name under src/providers/ matching shared/protocols/ file names: the
 * registry derives `VendorId` from its modules' ids.
 */
export interface ProviderModule<V extends string = string> {
  readonly vendor: V;
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
  /**
   * Places a translator's call on the channel's upstream (paths that carry the channel's own
   * settings: an Azure deployment and `api-version`, a Vertex project and region). Pure.
   */
  routeCall?(call: UpstreamCall, credentials: ChannelCredentials): UpstreamCall;
  /**
   * The credential headers of one request, composed into the shared upstream client as one step
   * around dispatch (issue 43, undici's interceptor shape): a static key, a token minted and cached
   * per channel (OAuth, Entra ID, Google), or a signature over the request (SigV4, AK/SK; the
   * request carries the headers sent so far and the call's `auth`). What it returns goes on after
   * the channel's and the call's headers; trace headers go on after it, so no signature covers them.
   * endpoint.ts is the only place that sees secrets.
   */
  authorize(credentials: ChannelCredentials, request: SignableRequest, nowMs: number): Promise<Record<string, string>>;
  readonly pairs: Partial<FamilyPairs>;
  /**
   * Responses over the vendor's chat API, for a channel whose server has no Responses API of its
   * own (issue 33): a channel's `responses: translate` swaps it in for `pairs.responses`;
   * `nativeByDefault` says which base URLs speak Responses when the channel does not say.
   */
  readonly responsesOverChat?: {
    readonly pair: NonNullable<Partial<FamilyPairs>['responses']>;
    nativeByDefault(baseUrl: string | undefined): boolean;
  };
  /** Asynchronous video-task translators, by surface (only vendors that create video tasks). */
  readonly video?: Partial<VideoSurfaceAdapters>;
  /**
   * The vendor's batch API (issue 46): a channel whose `batch` is `native` (or unset, where
   * `nativeByDefault` says so) sends a batch's lines as one upstream batch at the vendor's batch
   * price; without it, the gateway runs the lines itself.
   */
  readonly batch?: BatchAdapter;
  /** An upstream asset library (vendors that have one); without a channel, assets stay local. */
  readonly asset?: AssetAdapter;
  /** The built-in fake upstream speaking this vendor's protocol (its simulator.ts), imported when it is first asked for. */
  readonly simulator: SimulatorLoader;
  /** What a channel of this vendor takes: the console's channel form and GET /admin/api/vendors read it. */
  readonly channelFields: ChannelFields;
  /**
   * URLs the gateway fetches for a channel of this vendor that sit inside a field's value (the
   * token endpoint in a key file), each with the field that gives it: the link-local guard refuses
   * them as it does `base_url` and every declared field of type `url` (gateway/upstream-urls.ts).
   */
  fetchedUrls?(fields: Readonly<Record<string, unknown>>): readonly { field: string; url: string }[];
  /** Its rows of the built-in price sheet (prices.ts); absent where the vendor publishes no USD price. */
  readonly prices?: SheetVendor | readonly SheetVendor[];
}
