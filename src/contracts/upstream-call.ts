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
  /** The headers that will be sent (the channel's and the call's), for signers that cover some of them. */
  headers?: Readonly<Record<string, string>>;
}

/** Channel credentials, resolved from ${ENV} references at start-up. */
export interface ChannelCredentials {
  apiKey?: string;
  accessKey?: string;
  secretKey?: string;
  /** The signing region for AK/SK-signed APIs (Volcengine's `cn-beijing`, BytePlus's `ap-southeast-1`). */
  region?: string;
  /** AWS (Bedrock): an access key pair, with the session token of temporary credentials. */
  awsAccessKeyId?: string;
  awsSecretAccessKey?: string;
  awsSessionToken?: string;
  /** Azure OpenAI: the `api-version` of the deployment URL form; absent for the v1 form. */
  apiVersion?: string;
  /** Azure OpenAI: Microsoft Entra ID client credentials (a token minted per channel). */
  tenantId?: string;
  clientId?: string;
  clientSecret?: string;
  /** Entra ID's sign-in host (sovereign clouds, tests): https://login.microsoftonline.com unless set. */
  authorityHost?: string;
  /** Google Vertex AI: the project, and the service-account key (JSON text or a file path). */
  project?: string;
  serviceAccount?: string;
}
