import type { ChannelCredentials } from '../contracts/upstream-call.js';

/** An `authorize` for vendors whose credential is a static header (an API key): nothing to mint or sign. */
export function staticAuthorization(headersOf: (credentials: ChannelCredentials) => Record<string, string>) {
  return async (credentials: ChannelCredentials): Promise<Record<string, string>> => headersOf(credentials);
}
