import { ASSET_MODEL } from '../../catalog/models.js';
import { GatewayError } from '../../errors.js';
import type { Channel } from '../../gateway/channel.js';
import { routeModel } from '../../gateway/route-model.js';
import { readErrorBody, type UpstreamClient } from '../../gateway/upstream-client.js';
import type { AssetAction, AssetOutcome } from '../../contracts/asset-adapter.js';
import { ASSET_ID_PATTERN } from './schemas.js';

const ASSET_ID = new RegExp(ASSET_ID_PATTERN);

/** The channel of an upstream asset library, when one is configured for `cloud-asset`. */
export const assetChannelOf = (channels: readonly Channel[]): Channel | undefined =>
  routeModel(channels, ASSET_MODEL).find((channel) => channel.provider.asset !== undefined);

/** One action against the upstream asset library, through the vendor's pure asset translators. */
export async function callAssetUpstream(
  upstream: UpstreamClient,
  channel: Channel,
  action: AssetAction,
  body: Record<string, unknown>,
): Promise<AssetOutcome> {
  const adapter = channel.provider.asset!;
  const response = await upstream.send(channel, adapter.toAssetCall(action, body));
  return adapter.fromAssetResponse(response.status, await readErrorBody(response.body));
}

/** The id an upstream CreateAsset returned, checked before we hand it out. */
export function createdAssetId(outcome: AssetOutcome): string {
  const id = outcome.kind === 'ok' ? outcome.result.Id : undefined;
  if (typeof id !== 'string' || !ASSET_ID.test(id)) {
    throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The asset library answered without a valid asset id');
  }
  return id;
}
