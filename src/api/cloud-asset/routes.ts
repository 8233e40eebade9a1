import type { FastifyInstance } from 'fastify';
import { ASSET_MODEL } from '../../catalog/models.js';
import { GatewayError } from '../../errors.js';
import { assertModelAllowed } from '../../plugins/auth.js';
import type { Validator } from '../../validation/compile.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { AssetStore, toAssetObject } from './asset-store.js';
import {
  CreateAssetRequest, DeleteAssetRequest, GetAssetRequest, ListAssetsRequest,
  validateAssetId, validateCreateAsset, validateListAssets, type AssetIdBody, type CreateAssetBody, type ListAssetsBody,
} from './schemas.js';

const route = (summary: string, body: object, validate: Validator<unknown>) => ({
  config: { family: 'cloud-asset' as const },
  schema: { summary, tags: ['cloud-asset'], security: [{ bearer: [] }], body },
  validatorCompiler: () => toFastifyValidator(validate),
});

/**
 * POST /cloud/asset/{CreateAsset,GetAsset,ListAssets,DeleteAsset} (spec §7 and siblings), backed
 * by the local asset library. DeleteAsset is idempotent: an unknown, already deleted or another
 * key's asset answers 200 `Deleted: false` (nothing is revealed about other keys' assets).
 */
export async function cloudAssetRoutes(app: FastifyInstance): Promise<void> {
  const store = new AssetStore(app.gateway.db, app.gateway.config.dataDir);
  app.addHook('preHandler', async (request) => {
    assertModelAllowed(request.gw.key, ASSET_MODEL);
    request.gw.model = ASSET_MODEL;
  });

  app.post('/cloud/asset/DeleteAsset', route('Delete an asset', DeleteAssetRequest, validateAssetId), async (request) => {
    const { Id } = request.body as AssetIdBody;
    return { Id, Deleted: await store.delete(request.gw.key!.id, Id, app.gateway.now()) };
  });

  app.post('/cloud/asset/CreateAsset', route('Upload or register an asset', CreateAssetRequest, validateCreateAsset), async (request) => {
    const row = await store.create(request.gw.key!.id, request.body as CreateAssetBody, app.gateway.now());
    return toAssetObject(row);
  });

  app.post('/cloud/asset/GetAsset', route('Get an asset', GetAssetRequest, validateAssetId), async (request) => {
    const { Id } = request.body as AssetIdBody;
    const row = await store.find(request.gw.key!.id, Id);
    if (!row) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No asset '${Id}'`);
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
