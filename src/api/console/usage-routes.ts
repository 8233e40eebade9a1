import type { FastifyInstance } from 'fastify';
import { UsageReport } from '../management/usage-schemas.js';
import { validated } from '../management/route-validation.js';
import { sendUsageCsv, usageAnswer } from '../management/usage-answer.js';
import { ConsoleModelList, ConsoleUsageQuery, validateConsoleUsageQuery, type ConsoleUsageQuery as Query } from './schemas.js';
import { sessionOfRequest } from '../management/session-auth.js';
import type { ConsoleRouteTools } from './route-tools.js';

/** The signed-in user's usage (their keys only; same figures as /admin/api/usage) and models. */
export async function consoleUsageRoutes(app: FastifyInstance, { opts }: ConsoleRouteTools): Promise<void> {
  const { config } = app.gateway;

  app.get(
    '/console/api/usage',
    { ...opts("Your keys' usage and cost, optionally grouped (as /admin/api/usage)", { querystring: ConsoleUsageQuery, response: { 200: UsageReport } }), validatorCompiler: validated(validateConsoleUsageQuery) },
    async (request) => usageAnswer(app.gateway, request.query as Query, sessionOfRequest(request).user.id),
  );

  app.get(
    '/console/api/usage.csv',
    {
      ...opts("Your keys' usage as CSV (same query and figures as /console/api/usage)", { querystring: ConsoleUsageQuery, produces: ['text/csv'], response: { 200: { type: 'string' } } }),
      validatorCompiler: validated(validateConsoleUsageQuery),
    },
    async (request, reply) => sendUsageCsv(reply, app.gateway.readDb, await usageAnswer(app.gateway, request.query as Query, sessionOfRequest(request).user.id)),
  );

  app.get('/console/api/models', opts('Models you may use and grant to your keys, with their prices', { response: { 200: ConsoleModelList } }), async (request) => {
    const { user } = sessionOfRequest(request);
    const served = app.gateway.catalog.servedModels();
    const allowed = user.role === 'operator' ? served : served.filter((m) => (!user.models || user.models.includes(m.id)) && (!user.families || m.families.some((f) => user.families!.includes(f))));
    return {
      object: 'list' as const,
      data: allowed.map((m) => ({
        id: m.id,
        vendor: m.owner,
        families: user.role === 'operator' || !user.families ? [...m.families] : m.families.filter((f) => user.families!.includes(f)),
        price: app.gateway.prices.priceFor(undefined, m.id)?.price ?? null,
      })),
    };
  });
}
