import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { GatewayError } from '../../errors.js';
import { scopeOf } from '../../cache/cache-policy.js';

const SwitchBody = Type.Object(
  {
    enabled: Type.Boolean(),
    ttl_seconds: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 31_536_000 }), Type.Null()])),
    mode: Type.Optional(Type.Union([Type.Literal('exact'), Type.Literal('semantic'), Type.Null()], { description: 'exact, or semantic (a similar last user message; needs cache.semantic); null follows the global switch or the file' })),
    hit_cost_fraction: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: "What a hit costs as a share of the answer's price; null follows the global switch or the file" })),
  },
  { additionalProperties: false },
);
const TargetParams = Type.Object({ target: Type.String({ minLength: 1, maxLength: 200 }) });
const PurgeQuery = Type.Object(
  {
    key_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

/**
 * The response cache under /admin/api/cache (issue 32): its switches and counters, the global
 * (`*`) and per-model switches (they win over the file's and reach every instance within one
 * sweep interval), and purges of any scope.
 */
export async function adminCacheRoutes(app: FastifyInstance, opts: (summary: string, schema?: Record<string, unknown>) => object): Promise<void> {
  const cache = app.gateway.responseCache;
  app.get('/admin/api/cache', opts('The response cache: switches in force, counters and stored bytes'), async () => ({
    ...cache.switches.view(),
    hit_cost_fraction: cache.hitCostFraction,
    cache_tool_calls: cache.cachesToolCalls,
    max_bytes: cache.maxBytes,
    semantic: cache.semantic
      ? { embedding_model: cache.semantic.embeddingModel, threshold: cache.semantic.threshold, indexed: await cache.semantic.questions.count(app.gateway.now()).catch(() => null) }
      : null,
    stored_bytes: await cache.store.totalBytes(),
    counts: cache.counts,
  }));
  app.put('/admin/api/cache/switches/:target', opts('Turn the cache on or off globally (`*`) or for one model, with its default TTL', { params: TargetParams, body: SwitchBody }), async (request) => {
    const { target } = request.params as { target: string };
    const body = request.body as { enabled: boolean; ttl_seconds?: number | null; hit_cost_fraction?: number | null; mode?: 'exact' | 'semantic' | null };
    await cache.setSwitch(target, { enabled: body.enabled, ttlS: body.ttl_seconds ?? null, hitCostFraction: body.hit_cost_fraction ?? null, mode: body.mode ?? null });
    return cache.switches.view();
  });
  app.delete('/admin/api/cache/switches/:target', opts("Remove the admin API's switch (the file's applies again)", { params: TargetParams }), async (request) => {
    await cache.setSwitch((request.params as { target: string }).target, null);
    return cache.switches.view();
  });
  app.delete('/admin/api/cache', opts("Purge cached answers: one key's scope (`key_id`), one model, or everything", { querystring: PurgeQuery }), async (request) => {
    const { key_id: keyId, model } = request.query as { key_id?: string; model?: string };
    let scope: string | undefined;
    if (keyId !== undefined) {
      const key = await app.gateway.keys.get(keyId);
      if (!key) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No API key '${keyId}'`);
      scope = scopeOf(key);
    }
    return { object: 'cache.purge', deleted: await cache.purge({ scope, model }) };
  });
}
