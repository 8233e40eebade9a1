import type { FastifyInstance } from 'fastify';
import { generalErrors } from '../general/errors.js';
import { ASSET_MODEL } from '../../catalog/models.js';
import { GatewayError } from '../../errors.js';
import { admit } from '../../plugins/rate-limit.js';
import type { Validator } from '../../validation/compile.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { AssetStore, toAssetObject } from './asset-store.js';
import { assetChannelOf, callAssetUpstream, createdAssetId } from './asset-upstream.js';
import {
  CreateAssetRequest, DeleteAssetRequest, GetAssetRequest, ListAssetsRequest,
  validateAssetId, validateCreateAsset, validateListAssets, type AssetIdBody, type CreateAssetBody, type ListAssetsBody,
} from './schemas.js';

const route = (summary: string, body: object, validate: Validator<unknown>) => ({
  config: { family: 'cloud-asset' as const, errors: generalErrors },
  schema: { summary, tags: ['cloud-asset'], security: [{ bearer: [] }], body },
  validatorCompiler: () => toFastifyValidator(validate),
});

/**
 * POST /cloud/asset/{CreateAsset,GetAsset,ListAssets,DeleteAsset} (spec §7 and siblings). The
 * local asset library is the default; with a channel serving `cloud-asset` whose vendor has an
 * asset library (Ark's signed OpenAPI), Create/Get/Delete also go upstream. Which key owns which
 * asset is always kept here, since one upstream account serves every key: DeleteAsset on an
 * unknown, already deleted or another key's asset answers 200 `Deleted: false` and reveals nothing.
 */
export async function cloudAssetRoutes(app: FastifyInstance): Promise<void> {
  const store = new AssetStore(app.gateway.db, app.gateway.config.dataDir);
  const { upstream } = app.gateway;
  const channel = assetChannelOf(app.gateway.channels);
  app.addHook('preHandler', async (request, reply) => admit(request, reply, ASSET_MODEL));

  app.post('/cloud/asset/DeleteAsset', route('Delete an asset', DeleteAssetRequest, validateAssetId), async (request) => {
    const { Id } = request.body as AssetIdBody;
    const keyId = request.gw.key!.id;
    if (channel && (await store.find(keyId, Id))) {
      request.gw.channel = channel.name;
      const outcome = await callAssetUpstream(upstream, channel, 'DeleteAsset', { Id });
      const deleted = await store.delete(keyId, Id, app.gateway.now());
      return { Id, Deleted: deleted && outcome.kind === 'ok' };
    }
    return { Id, Deleted: await store.delete(keyId, Id, app.gateway.now()) };
  });

  app.post('/cloud/asset/CreateAsset', route('Upload or register an asset', CreateAssetRequest, validateCreateAsset), async (request) => {
    const body = request.body as CreateAssetBody;
    if (!channel) return toAssetObject(await store.create(request.gw.key!.id, body, app.gateway.now()));
    if (body.Data !== undefined) {
      throw new GatewayError('GW_REQ_INVALID_PARAM', "'Data' uploads need the local asset library; with an upstream library pass 'URL'", { param: 'Data' });
    }
    request.gw.channel = channel.name;
    const id = createdAssetId(await callAssetUpstream(upstream, channel, 'CreateAsset', body));
    return toAssetObject(await store.create(request.gw.key!.id, body, app.gateway.now(), id));
  });

  app.post('/cloud/asset/GetAsset', route('Get an asset', GetAssetRequest, validateAssetId), async (request) => {
    const { Id } = request.body as AssetIdBody;
    const row = await store.find(request.gw.key!.id, Id);
    if (!row) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No asset '${Id}'`);
    if (channel && (await callAssetUpstream(upstream, channel, 'GetAsset', { Id })).kind === 'not-found') {
      await store.delete(request.gw.key!.id, Id, app.gateway.now());
      throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No asset '${Id}'`);
    }
    return toAssetObject(row);
  });

  app.post('/cloud/asset/ListAssets', route('List assets', ListAssetsRequest, validateListAssets), async (request) => {
    const body = request.body as ListAssetsBody;
    const pageNumber = body.PageNumber ?? 1;
    const pageSize = body.PageSize ?? 10;
    const { rows, total } = await store.list(request.gw.key!.id, pageNumber, pageSize);
    return { Items: rows.map(toAssetObject), PageNumber: pageNumber, PageSize: pageSize, TotalCount: total };
  });
}
