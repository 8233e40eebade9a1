import type { FastifyInstance } from 'fastify';
import { SessionStore } from '../../users/session-store.js';
import { UserStore } from '../../users/user-store.js';
import { authenticateSession, requireJsonWrite, requireSameOrigin, sessionOfRequest } from '../management/session-auth.js';
import { requestLogRoutes } from '../request-log/routes.js';
import { taskListRoutes } from '../task-log/routes.js';
import { consoleSessionRoutes } from './session-routes.js';
import { consoleKeyRoutes } from './key-routes.js';
import { consoleUsageRoutes } from './usage-routes.js';
import { consolePlaygroundRoutes } from './playground-routes.js';
import type { ConsoleRouteTools } from './route-tools.js';

const describe = 'Console session cookie (`gw_session`, set by POST /console/api/session); state-changing requests also need the `x-csrf-token` header, and a body sent as `application/json`.';

/** Routes reachable without a session: signing in, the sign-in page's options and accepting an invitation. */
const SIGN_IN_ROUTES = new Set(['POST /console/api/session', 'GET /console/api/sign-in-options', 'POST /console/api/invite/accept']);

/**
 * The key holder's API under /console/api (issue 12): everything is scoped to the signed-in
 * user. Authenticated by the session cookie, with the CSRF header on every write, checked here
 * for this plugin's routes only. Errors use the general envelope.
 */
export async function consoleRoutes(app: FastifyInstance): Promise<void> {
  const { db, now } = app.gateway;
  const sessions = new SessionStore(db, now);
  const users = new UserStore(db, now);
  app.addHook('onRequest', async (request) => {
    if (SIGN_IN_ROUTES.has(`${request.method} ${request.routeOptions.url}`)) {
      // No session yet, so no CSRF token: the request must come from the console itself, as JSON (issue 23).
      requireSameOrigin(request, app.gateway.config.publicUrl);
      requireJsonWrite(request);
      return;
    }
    await authenticateSession(request, sessions);
  });
  const opts = (summary: string, schema: Record<string, unknown> = {}) => ({
    config: { isPublic: true },
    schema: { summary, description: describe, tags: ['console'], security: [{ consoleSession: [] }], ...schema },
  });
  const tools: ConsoleRouteTools = { sessions, users, opts };
  await consoleSessionRoutes(app, tools);
  await consoleKeyRoutes(app, tools);
  await consoleUsageRoutes(app, tools);
  await consolePlaygroundRoutes(app, tools);
  // Operators signed in to the console read the whole log under /admin/api; here, only their own keys'.
  await requestLogRoutes(app, { base: '/console/api', opts, ownerOf: (request) => sessionOfRequest(request).user.id });
  await taskListRoutes(app, { base: '/console/api', opts, ownerOf: (request) => sessionOfRequest(request).user.id });
}
