import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors.js';
import type { ApiKey } from '../../keys/key-store.js';
import { validated } from '../management/route-validation.js';
import { SessionStore } from '../../users/session-store.js';
import { UserStore } from '../../users/user-store.js';
import { adminAuthenticator } from './admin-auth.js';
import { toKeyPatch } from '../management/key-input.js';
import { admissionNow, KeyViews } from '../management/key-views.js';
import { adminUserRoutes } from './user-routes.js';
import { requestLogRoutes } from '../request-log/routes.js';
import { adminChannelRoutes } from './channel-routes.js';
import { adminVendorRoutes } from './vendor-routes.js';
import { adminModelRoutes } from './model-routes.js';
import { adminMcpServerRoutes } from './mcp-server-routes.js';
import { adminCacheRoutes } from './cache-routes.js';
import { taskListRoutes } from '../task-log/routes.js';
import { sendUsageCsv, usageAnswer } from '../management/usage-answer.js';
import { keyListAnswer } from '../management/key-list.js';
import { AdminCreateKeyBody, PricesView, TiersView, validateAdminCreateKey, type AdminCreateKeyBody as CreateBody } from './schemas.js';
import { CreatedKeyView, KeyIdParams, KeyList, KeyListQuery, KeyView, PatchKeyBody, validateKeyListQuery, validatePatchKey, type PatchKeyBody as PatchBody } from '../management/key-schemas.js';
import { UsageQuery, UsageReport, validateUsageQuery, type UsageQuery as Query } from '../management/usage-schemas.js';

const security: Array<Record<string, string[]>> = [{ bearer: [] }, { consoleSession: [] }];
const describe = "Admin token (`Authorization: Bearer <admin token>`, not an API key), or an operator's console session cookie (with the `x-csrf-token` header on writes).";

/**
 * The operator API under /admin/api: keys (create, list, read, change, revoke, regenerate), users
 * and invitations, the usage ledger (JSON and CSV), and the configured tiers and prices. Public
 * for the API-key hook; the admin token or an operator's session is checked here, for this
 * plugin's routes only. Errors use the general envelope (by path).
 */
export async function adminRoutes(app: FastifyInstance): Promise<void> {
  const { keys, db, readDb, now, config, usage } = app.gateway;
  const authenticate = adminAuthenticator(db, now, new SessionStore(db, now), app.signInLimiter);
  app.addHook('onRequest', async (request) => authenticate(request));
  const users = new UserStore(db, now);
  const views = new KeyViews(readDb, usage, now, (id) => app.gateway.catalog.find(id) !== undefined, admissionNow(app.admission));
  const opts = (summary: string, schema: Record<string, unknown> = {}) => ({
    config: { isPublic: true },
    schema: { summary, description: describe, tags: ['admin'], security, ...schema },
  });
  const found = async (id: string): Promise<ApiKey> => {
    const key = await keys.get(id);
    if (!key) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No API key '${id}'`);
    return key;
  };
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
  await adminCacheRoutes(app, opts);

  app.post(
    '/admin/api/keys',
    {
      ...opts('Create an API key (the secret is shown once); `owner` makes it a user\'s key', { body: AdminCreateKeyBody, response: { 201: CreatedKeyView } }),
      validatorCompiler: validated(validateAdminCreateKey),
    },
    async (request, reply) => {
      const body = request.body as CreateBody;
      const patch = toKeyPatch(body, config.file.tiers, app.gateway.catalog);
      if (body.owner !== undefined && !(await users.get(body.owner))) {
        throw new GatewayError('GW_REQ_INVALID_PARAM', `'owner': no user '${body.owner}'`, { param: 'owner' });
      }
      const { key, secret } = await keys.create({ ...patch, name: body.name, byOperator: true, ...(body.owner === undefined ? {} : { owner: body.owner }) });
      return reply.code(201).send({ ...(await views.one(key)), key: secret });
    },
  );

  app.get(
    '/admin/api/keys',
    { ...opts('List API keys (never their secrets); `q` searches names, `limit` and `offset` page', { querystring: KeyListQuery, response: { 200: KeyList } }), validatorCompiler: validated(validateKeyListQuery) },
    async (request) => keyListAnswer(keys, views, request.query as KeyListQuery),
  );

  app.get('/admin/api/keys/:id', opts('Get an API key and what it has spent', { params: KeyIdParams, response: { 200: KeyView } }), async (request) => {
    return views.one(await found(idOf(request)), { withSpend: true });
  });

  app.patch(
    '/admin/api/keys/:id',
    { ...opts('Change an API key (null clears a limit or list; takes effect at once)', { params: KeyIdParams, body: PatchKeyBody, response: { 200: KeyView } }), validatorCompiler: validated(validatePatchKey) },
    async (request) => {
      const id = idOf(request);
      const current = await found(id);
      if (current.revokedAt !== null) throw new GatewayError('GW_REQ_INVALID_PARAM', `API key '${id}' is revoked and cannot be changed`);
      const updated = await keys.update(id, toKeyPatch(request.body as PatchBody, config.file.tiers, app.gateway.catalog), { byOperator: true });
      return views.one(updated ?? current);
    },
  );

  app.delete('/admin/api/keys/:id', opts('Revoke an API key (permanent)', { params: KeyIdParams, response: { 200: KeyView } }), async (request) => {
    const id = idOf(request);
    await found(id);
    await keys.revoke(id);
    return views.one(await found(id));
  });

  app.post(
    '/admin/api/keys/:id/regenerate',
    opts('Give a key a new secret (shown once); the old secret stops working at once', { params: KeyIdParams, response: { 200: CreatedKeyView } }),
    async (request, reply) => {
      const id = idOf(request);
      await found(id);
      const regenerated = await keys.regenerate(id);
      if (!regenerated) throw new GatewayError('GW_REQ_INVALID_PARAM', `API key '${id}' is revoked; its secret cannot be regenerated`);
      return reply.code(200).send({ ...(await views.one(regenerated.key)), key: regenerated.secret });
    },
  );

  app.get(
    '/admin/api/usage',
    { ...opts('Usage and cost totals, optionally grouped', { querystring: UsageQuery, response: { 200: UsageReport } }), validatorCompiler: validated(validateUsageQuery) },
    async (request) => usageAnswer(app.gateway, request.query as Query),
  );

  app.get(
    '/admin/api/usage.csv',
    {
      ...opts('The usage report as CSV (same query and figures as /admin/api/usage)', { querystring: UsageQuery, produces: ['text/csv'], response: { 200: { type: 'string' } } }),
      validatorCompiler: validated(validateUsageQuery),
    },
    async (request, reply) => sendUsageCsv(reply, readDb, await usageAnswer(app.gateway, request.query as Query)),
  );

  app.get('/admin/api/tiers', opts('Rate-limit tiers (configuration)', { response: { 200: TiersView } }), async () => ({
    object: 'tiers' as const,
    default_tier: config.file.tiers?.default ? 'default' : null,
    data: config.file.tiers ?? {},
  }));

  app.get('/admin/api/prices', opts("The operator's prices in USD per model: the file's, and the admin API's which win (the built-in sheet is at /admin/api/price-sheet)", { response: { 200: PricesView } }), async () => ({
    object: 'prices' as const,
    currency: 'USD' as const,
    data: app.gateway.prices.operatorPrices(),
  }));

  // Users and invitations: routes of this plugin's scope, so the hook above guards them too.
  await adminUserRoutes(app, { users, keys, opts });
  await requestLogRoutes(app, { base: '/admin/api', opts, ownerOf: () => undefined });
  await adminChannelRoutes(app, { opts });
  await adminVendorRoutes(app, { opts });
  await adminModelRoutes(app, { opts, users });
  await adminMcpServerRoutes(app, { opts });
  await taskListRoutes(app, { base: '/admin/api', opts, ownerOf: () => undefined });
}
