import type { UpstreamCall } from './upstream-call.js';

/** The asset actions that reach an upstream asset library (listing stays local: it is per key). */
export type AssetAction = 'CreateAsset' | 'GetAsset' | 'DeleteAsset';

/** What the upstream said about one action. */
export type AssetOutcome = { kind: 'ok'; result: Record<string, unknown> } | { kind: 'not-found' };

/** Pure translators between our asset actions and a vendor's asset API. */
export interface AssetAdapter {
  toAssetCall(action: AssetAction, body: Record<string, unknown>): UpstreamCall;
  /** Reads the upstream's answer; throws a GatewayError for failures other than "no such asset". */
  fromAssetResponse(status: number, body: unknown): AssetOutcome;
}
