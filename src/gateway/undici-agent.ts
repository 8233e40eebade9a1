import { createRequire } from 'node:module';
import type { Agent as UndiciAgent } from 'undici';

const require = createRequire(import.meta.url);

/**
 * undici's connection-pooling Agent, loaded from its own modules. The package's index also loads
 * fetch, WebSocket, caching, mocks and more: about 3 MB of heap in every gateway process, for
 * code the gateway never runs (it uses the dispatch and request APIs only). undici has no
 * `exports` map, so these module paths are public; types still come from the package.
 */
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export type Agent = UndiciAgent;

// The request/stream/pipeline methods, attached to every dispatcher as undici's index does.
Object.assign((require('undici/lib/dispatcher/dispatcher.js') as { prototype: object }).prototype, require('undici/lib/api/index.js'));
