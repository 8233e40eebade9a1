import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';

const require = createRequire(import.meta.url);

/**
 * undici's connection-pooling Agent and its request API, loaded from their own modules. The
 * package's index also loads fetch, WebSocket, caching, mocks and more: about 3 MB of heap in every
 * gateway process, for code the gateway never runs (it uses the dispatch and request APIs only).
 * undici has no `exports` map, so these module paths are reachable; test/gateway/undici-agent.test.ts
 * pins them (an upgrade that moves them fails there, not in production) and checks that nothing
 * loads the index. Types still come from the package.
 */
export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export type Agent = UndiciAgent;

type RequestApi = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
const requestApi = require('undici/lib/api/api-request.js') as RequestApi;

/**
 * undici's `request` on the dispatcher passed in. undici's index attaches this API to every
 * Dispatcher's prototype; without the index nothing is attached, and nothing global is changed
 * here either: the dispatcher is named per call (issue 28).
 */
export function requestWith(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return requestApi.call(dispatcher, options);
}
