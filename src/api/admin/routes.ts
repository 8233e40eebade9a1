import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors.js';
import type { ApiKey } from '../../keys/key-store.js';
import { toFastifyValidator, type Validator } from '../../validation/compile.js';
import { usageReport } from '../../usage/usage-report.js';
import { adminAuthenticator } from './admin-auth.js';
import { parseTimestamp, toKeyPatch, toKeyView } from './key-input.js';
import {
  CreatedKeyView, CreateKeyBody, KeyIdParams, KeyList, KeyView, PatchKeyBody, PricesView, TiersView, UsageQuery, UsageReport,
  validateCreateKey, validatePatchKey, validateUsageQuery, type CreateKeyBody as CreateBody, type PatchKeyBody as PatchBody, type UsageQuery as Query,
} from './schemas.js';

const security = [{ bearer: [] }];
const describe = 'Admin token (`Authorization: Bearer <admin token>`), not an API key.';
/** The route's body (or query) validator; path parameters are plain strings. */
const validated = (validate: Validator<unknown>) => ({ httpPart }: { httpPart?: string }) =>
  httpPart === 'body' || httpPart === 'querystring' ? toFastifyValidator(validate) : (value: unknown) => ({ value });

/**
 * The operator API under /admin/api: keys (create, list, read, change, revoke), the usage
 * ledger, and the configured tiers and prices. Public for the API-key hook; the admin token is
 * checked here, for this plugin's routes only. Errors use the general envelope (by path).
 */
export async function adminRoutes(app: FastifyInstance): Promise<void> {
  const { keys, db, now, config, usage } = app.gateway;
  const authenticate = adminAuthenticator(db, now);
  app.addHook('onRequest', async (request) => authenticate(request));
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

  app.post(
    '/admin/api/keys',
    { ...opts('Create an API key (the secret is shown once)', { body: CreateKeyBody, response: { 201: CreatedKeyView } }), validatorCompiler: validated(validateCreateKey) },
    async (request, reply) => {
      const body = request.body as CreateBody;
      const patch = toKeyPatch(body, config.file.tiers);
      const { key, secret } = await keys.create({ ...patch, name: body.name });
      return reply.code(201).send({ ...toKeyView(key, now()), key: secret });
    },
  );

  app.get('/admin/api/keys', opts('List API keys (never their secrets)', { response: { 200: KeyList } }), async () => ({
    object: 'list' as const,
    data: (await keys.list()).map((key) => toKeyView(key, now())),
  }));

  app.get('/admin/api/keys/:id', opts('Get an API key and what it has spent', { params: KeyIdParams, response: { 200: KeyView } }), async (request) => {
    const key = await found(idOf(request));
    await usage.flush();
    const spent = await db.selectFrom('usage_events').select((eb) => eb.fn.sum<number | string | null>('cost_usd').as('usd')).where('key_id', '=', key.id).executeTakeFirst();
    return { ...toKeyView(key, now()), spent_usd: Number(spent?.usd ?? 0) };
  });

  app.patch(
    '/admin/api/keys/:id',
    { ...opts('Change an API key (null clears a limit or list; takes effect at once)', { params: KeyIdParams, body: PatchKeyBody, response: { 200: KeyView } }), validatorCompiler: validated(validatePatchKey) },
    async (request) => {
      const id = idOf(request);
      const current = await found(id);
      if (current.revokedAt !== null) throw new GatewayError('GW_REQ_INVALID_PARAM', `API key '${id}' is revoked and cannot be changed`);
      const updated = await keys.update(id, toKeyPatch(request.body as PatchBody, config.file.tiers));
      return toKeyView(updated ?? current, now());
    },
  );

  app.delete('/admin/api/keys/:id', opts('Revoke an API key (permanent)', { params: KeyIdParams, response: { 200: KeyView } }), async (request) => {
    const id = idOf(request);
    await found(id);
    await keys.revoke(id);
    return toKeyView(await found(id), now());
  });

  app.get(
    '/admin/api/usage',
    { ...opts('Usage and cost totals, optionally grouped', { querystring: UsageQuery, response: { 200: UsageReport } }), validatorCompiler: validated(validateUsageQuery) },
    async (request) => {
      const query = request.query as Query;
      const filter = {
        keyId: query.key,
        model: query.model,
        from: query.from === undefined ? undefined : parseTimestamp(query.from, 'from'),
        to: query.to === undefined ? undefined : parseTimestamp(query.to, 'to'),
      };
      // What this instance has counted but not yet written belongs in the answer.
      await usage.flush();
      const { totals, groups } = await usageReport(db, filter, query.group_by);
      return { object: 'usage_report' as const, group_by: query.group_by ?? null, totals, groups };
    },
  );

  app.get('/admin/api/tiers', opts('Rate-limit tiers (configuration)', { response: { 200: TiersView } }), async () => ({
    object: 'tiers' as const,
    default_tier: config.file.tiers?.default ? 'default' : null,
    data: config.file.tiers ?? {},
  }));

  app.get('/admin/api/prices', opts('Prices in USD per model (configuration)', { response: { 200: PricesView } }), async () => ({
    object: 'prices' as const,
    currency: 'USD' as const,
    data: config.file.prices ?? {},
  }));
}
