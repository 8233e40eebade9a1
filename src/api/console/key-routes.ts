import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors.js';
import { scopeOf } from '../../cache/cache-policy.js';
import { KeyStore, type ApiKey, type KeyPatch } from '../../keys/key-store.js';
import { budgetClaims, fitKeyToAllowance, withUserLocked, type BudgetClaims } from '../../users/key-allowance.js';
import { fitKeyToOperatorLimits } from '../../users/operator-bounds.js';
import { toKeyPatch } from '../management/key-input.js';
import { knownModelsOnly } from '../management/known-models.js';
import type { User } from '../../users/user-store.js';
import { admissionNow, KeyViews } from '../management/key-views.js';
import { keyListAnswer } from '../management/key-list.js';
import { validated } from '../management/route-validation.js';
import {
  CreatedKeyView, CreateKeyBody, KeyIdParams, KeyList, KeyListQuery, KeyView, PatchKeyBody, validateKeyListQuery,
  validateCreateKey, validatePatchKey, type CreateKeyBody as CreateBody, type PatchKeyBody as PatchBody,
} from '../management/key-schemas.js';
import { sessionOfRequest } from '../management/session-auth.js';
import type { ConsoleRouteTools } from './route-tools.js';

/**
 * The signed-in user's own keys (/console/token in the app). Another user's key id answers 404,
 * exactly like an id that does not exist: the answer never confirms someone else's key.
 */
export async function consoleKeyRoutes(app: FastifyInstance, { opts }: ConsoleRouteTools): Promise<void> {
  const { keys, db, readDb, now, usage, config } = app.gateway;
  const known = (id: string) => app.gateway.catalog.find(id) !== undefined;
  const views = new KeyViews(readDb, usage, now, known, admissionNow(app.admission));
  // A model deleted without pruning stays in the stored allowance but is granted no more (issue 35).
  const withKnownModels = (user: User): User => ({ ...user, models: knownModelsOnly(user.models, known) });
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
  const ownKey = async (request: FastifyRequest): Promise<ApiKey> => {
    const id = idOf(request);
    const key = await keys.get(id);
    if (!key || key.owner !== sessionOfRequest(request).user.id) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No API key '${id}'`);
    return key;
  };
  // A store over the transaction's connection; the key's change is announced once it is committed.
  const inTransaction = (trx: typeof db) => new KeyStore(trx, now);
  // Issue 44: a key holder stays within their allowance and within what an operator set on the key (its tier included).
  const fit = (user: User, asked: KeyPatch, key: ApiKey | undefined, claims: BudgetClaims | undefined): KeyPatch => {
    const patch = fitKeyToAllowance(user, asked, key ? 'patch' : 'create', claims);
    if (user.role !== 'operator') fitKeyToOperatorLimits(patch, key?.operatorLimits, config.file.tiers);
    return patch;
  };
  const asOperator = (user: User) => ({ byOperator: user.role === 'operator' });
  const live = (key: ApiKey, doing: string): ApiKey => {
    if (key.revokedAt !== null) throw new GatewayError('GW_REQ_INVALID_PARAM', `API key '${key.id}' is revoked and cannot be ${doing}`);
    return key;
  };

  app.get(
    '/console/api/keys',
    { ...opts('Your API keys (never their secrets); `q` searches names, `limit` and `offset` page', { querystring: KeyListQuery, response: { 200: KeyList } }), validatorCompiler: validated(validateKeyListQuery) },
    async (request) => keyListAnswer(keys, views, request.query as KeyListQuery, sessionOfRequest(request).user.id),
  );

  app.post(
    '/console/api/keys',
    {
      ...opts('Create one of your API keys, within your allowance (the secret is shown once)', { body: CreateKeyBody, response: { 201: CreatedKeyView } }),
      validatorCompiler: validated(validateCreateKey),
    },
    async (request, reply) => {
      const user = withKnownModels(sessionOfRequest(request).user);
      const body = request.body as CreateBody;
      refuseSharedNamespace(body, user.role);
      const asked = toKeyPatch(body, config.file.tiers, app.gateway.catalog, { listTiers: user.role === 'operator' });
      // Users have no MCP allowance to grant from (issue 31): only an operator gives keys MCP servers.
      if (user.role !== 'operator' && asked.mcp !== undefined) throw new GatewayError('GW_PERMISSION_DENIED', "Only an operator may change a key's MCP servers");
      if (user.role === 'operator' || user.budgetUsd === null) {
        const { key, secret } = await keys.create({ ...fit(user, asked, undefined, undefined), name: body.name, owner: user.id, ...asOperator(user) });
        return reply.code(201).send({ ...(await views.one(key)), key: secret });
      }
      // The user's budget: what their keys spent is read from the ledger, this instance's queued events first.
      await usage.flush();
      const { key, secret } = await withUserLocked(db, user.id, async (trx) => {
        const patch = fit(user, asked, undefined, await budgetClaims(trx, user.id));
        return inTransaction(trx).create({ ...patch, name: body.name, owner: user.id });
      });
      keys.changed(key.id);
      return reply.code(201).send({ ...(await views.one(key)), key: secret });
    },
  );

  app.get('/console/api/keys/:id', opts('One of your API keys', { params: KeyIdParams, response: { 200: KeyView } }), async (request) => views.one(await ownKey(request), { withSpend: true }));

  app.patch(
    '/console/api/keys/:id',
    {
      ...opts('Change one of your keys (disable, re-enable, rename, limits within your allowance and never above what an operator set on the key)', { params: KeyIdParams, body: PatchKeyBody, response: { 200: KeyView } }),
      validatorCompiler: validated(validatePatchKey),
    },
    async (request) => {
      const user = withKnownModels(sessionOfRequest(request).user);
      const key = live(await ownKey(request), 'changed');
      const body = request.body as PatchBody;
      refuseSharedNamespace(body, user.role);
      const asked = toKeyPatch(body, config.file.tiers, app.gateway.catalog, { listTiers: user.role === 'operator' });
      // Users have no MCP allowance to grant from (issue 31): only an operator gives keys MCP servers.
      if (user.role !== 'operator' && asked.mcp !== undefined) throw new GatewayError('GW_PERMISSION_DENIED', "Only an operator may change a key's MCP servers");
      if (user.role === 'operator' || user.budgetUsd === null || body.budget_usd === undefined) {
        return views.one((await keys.update(key.id, fit(user, asked, key, undefined), asOperator(user))) ?? key);
      }
      await usage.flush();
      const updated = await withUserLocked(db, user.id, async (trx) => {
        const patch = fit(user, asked, key, await budgetClaims(trx, user.id, key.id));
        return inTransaction(trx).update(key.id, patch);
      });
      keys.changed(key.id);
      return views.one(updated ?? key);
    },
  );

  app.delete('/console/api/keys/:id', opts('Revoke one of your keys (permanent)', { params: KeyIdParams, response: { 200: KeyView } }), async (request) => {
    const key = await ownKey(request);
    await keys.revoke(key.id);
    return views.one((await keys.get(key.id)) ?? key);
  });

  // Issue 32: a key holder purges the cached answers of one of their keys' scope (its user's
  // entries, or its operator-set namespace), like DELETE /v1/gateway/cache with that key.
  app.delete('/console/api/keys/:id/cache', opts("Purge the response cache entries one of your keys reads (its scope, every sub-namespace)", { params: KeyIdParams }), async (request) => {
    const key = await ownKey(request);
    return { object: 'cache.purge', deleted: await app.gateway.responseCache.purge({ scope: scopeOf(key) }) };
  });

  app.post(
    '/console/api/keys/:id/regenerate',
    opts('Give one of your keys a new secret (shown once); the old secret stops working at once', { params: KeyIdParams, response: { 200: CreatedKeyView } }),
    async (request) => {
      const key = live(await ownKey(request), 'regenerated');
      const regenerated = await keys.regenerate(key.id);
      if (!regenerated) throw new GatewayError('GW_REQ_INVALID_PARAM', `API key '${key.id}' is revoked and cannot be regenerated`);
      return { ...(await views.one(regenerated.key)), key: regenerated.secret };
    },
  );
}

/** A shared cache namespace reads other tenants' answers: only an operator sets one (issue 32). */
function refuseSharedNamespace(body: { cache_namespace?: string | null }, role: string): void {
  if (body.cache_namespace !== undefined && role !== 'operator') {
    throw new GatewayError('GW_REQ_INVALID_PARAM', "'cache_namespace' is set by an operator only", { param: 'cache_namespace' });
  }
}
