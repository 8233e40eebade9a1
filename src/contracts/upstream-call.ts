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
   * `request-signature`: credentials go into a signature over the whole request (the vendor's
   * `authorize` sees this and signs), not into static headers. Used by AK/SK-signed control-plane APIs.
   */
  auth?: 'headers' | 'request-signature';
}

/** The parts of an outgoing request a vendor's `authorize` may cover (a signature), or ignore (a static key). */
export interface SignableRequest {
  method: string;
  url: URL;
  /** The exact body bytes that will be sent (JSON text). */
  body: string;
  /** The headers that will be sent (the channel's and the call's), for signers that cover some of them. */
  headers?: Readonly<Record<string, string>>;
  /** The call's own `auth` (`request-signature`: sign the whole request). */
  auth?: UpstreamCall['auth'];
}

/**
 * A channel's credential and account fields, by the names its vendor declares in its folder
 * (`channelFields`, the config file's and admin API's names), resolved from ${ENV} references at
 * start-up. A vendor may narrow `Name` to the fields it declares.
 */
export type ChannelCredentials<Name extends string = string> = Readonly<Partial<Record<Name, string>>>;
