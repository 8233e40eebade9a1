import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CatalogEntry } from '../../catalog/catalog.js';
import { FAMILIES_BY_KIND } from '../../contracts/endpoint-family.js';
import { PRICE_SHEET } from '../../catalog/price-sheet.js';
import type { ModelConfig } from '../../config/schema.js';
import { GatewayError } from '../../errors.js';
import { routeModel } from '../../gateway/route-model.js';
import type { KeyStore } from '../../keys/key-store.js';
import type { UserStore } from '../../users/user-store.js';
import { pruneDeletedModel } from './model-prune.js';
import { validated } from '../management/route-validation.js';
import {
  CreateModelBody, DeleteModelQuery, ModelIdParams, ModelList, ModelView, PatchModelBody, PriceSheetView,
  validateCreateModel, validatePatchModel, type CreateModelBody as CreateBody, type PatchModelBody as PatchBody,
} from './model-schemas.js';

/**
 * The model catalog for operators (issue 21): every model with where it comes from, the channels
 * serving it and the price it is billed at; models and prices added or changed at runtime (kept in
 * the database, applied on every instance within seconds); the built-in price sheet.
 */
export async function adminModelRoutes(
  app: FastifyInstance,
  { opts, users }: { opts: (summary: string, schema?: Record<string, unknown>) => object; users: UserStore },
): Promise<void> {
  const keys: KeyStore = app.gateway.keys;
  const { catalog, catalogStore, catalogSync, channelControl, prices } = app.gateway;

  const view = (entry: CatalogEntry) => {
    const serving = channelControl.all.filter((channel) => Object.hasOwn(channel.models, entry.id));
    const price = prices.priceFor(undefined, entry.id);
    const routed = routeModel(app.gateway.channels, entry.id, () => 0);
    return {
      id: entry.id,
      vendor: entry.owner,
      kind: entry.kind,
      families: [...entry.families],
      source: entry.source,
      served: catalog.isServed(entry.id),
      channels: routed.map((channel) => channel.name),
      simulated: routed.length > 0 && routed.every((channel) => channel.isSimulator),
      disabled_channels: serving.filter((channel) => !channelControl.isEnabled(channel.name)).map((channel) => channel.name),
      price: price?.price ?? null,
      price_source: price?.source ?? null,
      price_runtime: prices.isRuntimePrice(entry.id),
      price_basis: price?.sheetModel ? [price.sheetModel, sheetBasis(price.sheetModel)].filter(Boolean).join(': ') : null,
    };
  };
  /** Spec models, the operator's, and the sheet's that a channel serves. */
  const listed = (): CatalogEntry[] => {
    const ids = new Set<string>();
    const entries: CatalogEntry[] = [];
    for (const entry of [...catalog.servedModels(), ...catalog.operatorModels()]) {
      if (!ids.has(entry.id)) entries.push(entry);
      ids.add(entry.id);
    }
    return entries;
  };
  const found = (request: FastifyRequest): CatalogEntry => {
    const { id } = request.params as { id: string };
    const entry = catalog.find(id);
    if (!entry) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No model '${id}'`);
    return entry;
  };
  /** This instance applies its own write at once; the others at their next look at the revision. */
  const applied = async (id: string) => {
    await catalogSync.refresh();
    return view(catalog.find(id)!);
  };

  app.get('/admin/api/models', opts('Models: the spec\'s, the operator\'s and the served built-in ones, with their channels and prices', { response: { 200: ModelList } }), async () => ({
    object: 'list' as const,
    data: listed().map(view),
  }));

  app.get('/admin/api/models/:id', opts('One model (any the gateway knows, served or not)', { params: ModelIdParams, response: { 200: ModelView } }), async (request) => view(found(request)));

  app.post(
    '/admin/api/models',
    {
      ...opts('Add a model: its public id, kind and families, optionally its price; a channel mapping it then serves it', { body: CreateModelBody, response: { 201: ModelView } }),
      validatorCompiler: validated(validateCreateModel),
    },
    async (request, reply) => {
      const body = request.body as CreateBody;
      const existing = catalog.find(body.id);
      if (existing?.source === 'spec') throw new GatewayError('GW_CONFLICT', `'${body.id}' is a model of the specification; it is served already (its price can be changed with PATCH)`);
      if (existing?.source === 'runtime') throw new GatewayError('GW_CONFLICT', `Model '${body.id}' exists already; change it with PATCH /admin/api/models/${body.id}`);
      await catalogStore.putModel({ id: body.id, kind: body.kind, families: body.families ?? [...FAMILIES_BY_KIND[body.kind]], ...(body.owned_by ? { owned_by: body.owned_by } : {}) } as never);
      if (body.price) await catalogStore.setPrice(body.id, body.price);
      return reply.code(201).send(await applied(body.id));
    },
  );

  app.patch(
    '/admin/api/models/:id',
    {
      ...opts("Change a model's kind, families, owner or price (null price: back to the file's or the built-in price)", { params: ModelIdParams, body: PatchModelBody, response: { 200: ModelView } }),
      validatorCompiler: validated(validatePatchModel),
    },
    async (request) => {
      const entry = found(request);
      const body = request.body as PatchBody;
      const definition = body.kind !== undefined || body.families !== undefined || body.owned_by !== undefined;
      if (definition && entry.source === 'spec') throw new GatewayError('GW_REQ_INVALID_PARAM', `'${entry.id}' is a model of the specification: only its price can be changed`, { param: 'kind' });
      if (definition) {
        // A file or built-in model changed here gets a row of its own, which wins over the file.
        const current: ModelConfig = (await catalogStore.model(entry.id)) ?? { id: entry.id, kind: entry.kind as ModelConfig['kind'], families: [...entry.families] as never };
        const kind = body.kind ?? current.kind;
        const families = body.families ?? (body.kind !== undefined && body.kind !== current.kind ? [...FAMILIES_BY_KIND[kind]] : current.families ?? [...FAMILIES_BY_KIND[kind]]);
        const ownedBy = body.owned_by === undefined ? current.owned_by : (body.owned_by ?? undefined);
        await catalogStore.putModel({ id: entry.id, kind, families, ...(ownedBy ? { owned_by: ownedBy } : {}) } as never);
      }
      if (body.price !== undefined) await catalogStore.setPrice(entry.id, body.price);
      return applied(entry.id);
    },
  );

  app.delete(
    '/admin/api/models/:id',
    opts("Remove what the admin API set for a model: its runtime definition and price (the file's or built-in ones apply again); `prune=true` also takes a model that is gone out of users' allowances and keys' model lists", {
      params: ModelIdParams,
      querystring: DeleteModelQuery,
      response: { 200: ModelView, 204: { type: 'null' } },
    }),
    async (request, reply) => {
      const entry = found(request);
      const stored = await catalogStore.model(entry.id);
      if (!stored && !prices.isRuntimePrice(entry.id)) {
        throw new GatewayError('GW_CONFLICT', `Model '${entry.id}' comes from the ${entry.source === 'file' ? 'configuration file' : entry.source === 'spec' ? 'specification' : 'built-in price sheet'}; there is nothing set at runtime to remove`);
      }
      const leftWithoutDefinition = !catalog.isDefinedBesidesRuntime(entry.id);
      const servingChannels = channelControl.all.filter((channel) => Object.hasOwn(channel.models, entry.id)).map((channel) => channel.name);
      if (leftWithoutDefinition && servingChannels.length > 0) {
        throw new GatewayError('GW_CONFLICT', `Model '${entry.id}' is served by ${servingChannels.map((name) => `'${name}'`).join(', ')}; take it out of their models first`);
      }
      await catalogStore.deleteModel(entry.id);
      await catalogSync.refresh();
      const after = catalog.find(entry.id);
      if (after) return view(after);
      if ((request.query as { prune?: string }).prune === 'true') await pruneDeletedModel(entry.id, users, keys);
      return reply.code(204).send();
    },
  );

  app.get('/admin/api/price-sheet', opts('The built-in price sheet: list prices of the default catalog\'s and common upstream models, with source and date', { response: { 200: PriceSheetView } }), async () => ({
    object: 'price_sheet' as const,
    currency: 'USD' as const,
    enabled: app.gateway.config.file.builtin_prices !== false,
    vendors: PRICE_SHEET.map((vendor) => ({
      vendor: vendor.vendor,
      source: vendor.source,
      checked: vendor.checked,
      models: Object.entries(vendor.models).map(([id, model]) => ({ id, kind: model.kind, price: model.price, basis: model.basis ?? null })),
    })),
  }));
}

function sheetBasis(model: string): string | undefined {
  for (const vendor of PRICE_SHEET) {
    const entry = vendor.models[model];
    if (entry) return entry.basis ?? `${vendor.source}, ${vendor.checked}`;
  }
  return undefined;
}
