import { GatewayError } from '../../errors.js';
import { sanitizeUpstreamMessage, upstreamStatusError } from '../../providers/upstream-errors.js';
import type { AssetAction, AssetAdapter, AssetOutcome } from '../../contracts/asset-adapter.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import { ARK_OPENAPI_VERSION } from './endpoint.js';

/** The Volcengine OpenAPI envelope (volcengine-ark.md "Asset library"). */
interface ArkOpenApiEnvelope {
  ResponseMetadata?: { RequestId?: string; Action?: string; Error?: { Code?: string; Message?: string } };
  Result?: Record<string, unknown>;
}

/** The fields each action sends; the PascalCase names are the native ones. */
const FIELDS: Record<AssetAction, readonly string[]> = {
  CreateAsset: ['GroupId', 'Name', 'AssetType', 'URL'],
  GetAsset: ['Id'],
  DeleteAsset: ['Id'],
};

/**
 * The Ark asset library through the signed OpenAPI: `POST /?Action=…&Version=2024-01-01` with the
 * PascalCase body; the answer is `{ResponseMetadata:{Error?}, Result}`.
 */
export const arkAssets: AssetAdapter = {
  toAssetCall(action: AssetAction, body: Record<string, unknown>): UpstreamCall {
    const native = Object.fromEntries(FIELDS[action].filter((f) => body[f] !== undefined).map((f) => [f, body[f]]));
    return { method: 'POST', path: '/', query: { Action: action, Version: ARK_OPENAPI_VERSION }, body: native, auth: 'request-signature' };
  },

  fromAssetResponse(status: number, body: unknown): AssetOutcome {
    const envelope = (body && typeof body === 'object' ? body : {}) as ArkOpenApiEnvelope;
    const error = envelope.ResponseMetadata?.Error;
    if (!error?.Code && status < 400) return { kind: 'ok', result: envelope.Result ?? {} };
    const code = error?.Code ?? '';
    if (/NotFound/i.test(code)) return { kind: 'not-found' };
    if (/^InvalidParameter|^MissingParameter/.test(code)) {
      throw new GatewayError('GW_UPSTREAM_BAD_REQUEST', sanitizeUpstreamMessage(error?.Message ?? 'The asset library rejected the request'));
    }
    if (/AccessDenied|SubscriptionRequired|Signature|InvalidAccessKey|InvalidCredential/i.test(code)) throw upstreamStatusError(401, undefined);
    if (/LimitExceeded|Throttl/i.test(code)) throw upstreamStatusError(429, undefined);
    throw upstreamStatusError(status >= 400 ? status : 502, undefined);
  },
};
