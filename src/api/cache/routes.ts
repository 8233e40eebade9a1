import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { GatewayError } from '../../errors.js';
import { scopeOf } from '../../cache/cache-policy.js';

const PurgeQuery = Type.Object({ model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }, { additionalProperties: false });

/**
 * DELETE /v1/gateway/cache (issue 32): a key holder purges the response cache entries of its own
 * scope (its user's, or the key's own, with every sub-namespace), optionally of one model. A key
 * in an operator-set shared namespace purges that namespace's entries. Operators purge any scope
 * through DELETE /admin/api/cache.
 */
export async function cacheRoutes(app: FastifyInstance): Promise<void> {
  app.delete(
    '/v1/gateway/cache',
    {
      schema: {
        summary: "Purge your own response cache entries",
        description: "Removes the cached answers of the calling key's scope (its user's entries, or the key's own when it has no user), all sub-namespaces included; `model` limits it to one model.",
        tags: ['cache'],
        security: [{ bearer: [] }],
        querystring: PurgeQuery,
      },
    },
    async (request) => {
      const key = request.gw.key;
      if (!key) throw new GatewayError('GW_AUTH_INVALID_KEY', 'An API key is needed to purge its cache entries');
      const { model } = request.query as { model?: string };
      const deleted = await app.gateway.responseCache.purge({ scope: scopeOf(key), model });
      return { object: 'cache.purge', deleted };
    },
  );
}
