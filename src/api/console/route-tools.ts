import type { SessionStore } from '../../users/session-store.js';
import type { UserStore } from '../../users/user-store.js';

/** What the console plugin hands each of its route files (in a file of its own, so they need not import the plugin). */
export interface ConsoleRouteTools {
  sessions: SessionStore;
  users: UserStore;
  /** Route options: public for the API-key hook (the session is checked here), tagged and documented. */
  opts: (summary: string, schema?: Record<string, unknown>) => object;
}
