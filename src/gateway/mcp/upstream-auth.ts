import type { Dispatcher } from 'undici';
import type { McpAuthConfig } from '../../config/schema.js';
import type { McpServer } from './server-store.js';
import { compileMasker, type Masker } from '../secret-masker.js';
import { fetchThrough } from './upstream-fetch.js';

interface CachedToken {
  token: string;
  until: number;
}

/**
 * The headers the gateway sends an upstream MCP server: its static headers and its credential,
 * never anything of the client's (issue 31: the gateway's key stays here, the upstream's there).
 * OAuth client-credentials tokens are fetched once and reused until shortly before they expire.
 */
export class McpUpstreamAuth {
  private readonly tokens = new Map<string, CachedToken>();
  /** Every token fetched per server, until it expires (a refused or renewed one may still work): all are masked. */
  private readonly issued = new Map<string, Map<string, number>>();
  private readonly maskers = new Map<string, { fingerprint: string; mask: Masker }>();

  constructor(
    /** The shared undici agent (gateway/upstream-client.ts); the global one when absent. */
    private readonly dispatcher?: Dispatcher,
    private readonly now: () => number = Date.now,
  ) {}

  async headersFor(server: McpServer): Promise<Record<string, string>> {
    const headers: Record<string, string> = { ...server.headers };
    const auth = server.auth;
    if (!auth || auth.type === 'none') return headers;
    if (auth.type === 'bearer') headers.authorization = `Bearer ${auth.token}`;
    else if (auth.type === 'header') headers[auth.header.toLowerCase()] = auth.value;
    else headers.authorization = `Bearer ${await this.clientCredentialsToken(server.name, auth)}`;
    return headers;
  }

  /**
   * The masker of everything secret the gateway sends this server (issue 44): its static headers,
   * its credential and the OAuth tokens it was given. Compiled again only when one of them changed.
   */
  maskerFor(server: McpServer): Masker {
    const values = [...secretValuesOf(server), ...this.liveTokens(server.name)];
    const fingerprint = values.join('\u0000');
    const known = this.maskers.get(server.name);
    if (known?.fingerprint === fingerprint) return known.mask;
    // Servers removed at run time leave no trail: a bounded map, oldest out.
    if (this.maskers.size >= MAX_MASKERS) this.maskers.delete(this.maskers.keys().next().value!);
    const mask = compileMasker(values, { minLength: MIN_SECRET_LENGTH });
    this.maskers.set(server.name, { fingerprint, mask });
    return mask;
  }

  private liveTokens(server: string): string[] {
    const issued = this.issued.get(server);
    if (!issued) return [];
    const now = this.now();
    for (const [token, until] of issued) if (until <= now) issued.delete(token);
    return [...issued.keys()];
  }

  /** Forgets a server's token (it was refused: the next call fetches a new one). */
  forget(server: string): void {
    this.tokens.delete(server);
  }

  private async clientCredentialsToken(server: string, auth: Extract<McpAuthConfig, { type: 'oauth_client_credentials' }>): Promise<string> {
    const cached = this.tokens.get(server);
    if (cached && cached.until > this.now()) return cached.token;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: auth.client_id, client_secret: auth.client_secret });
    if (auth.scope) form.set('scope', auth.scope);
    // Never redirected: a redirect would take the call past the link-local guard (upstream-guard.ts).
    const response = await fetchThrough(this.dispatcher, auth.token_url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form, redirect: 'error', signal: AbortSignal.timeout(15_000) });
    // The token endpoint's body is not repeated: it may echo the client secret.
    if (!response.ok) throw new UpstreamAuthError(`the token endpoint of MCP server '${server}' answered HTTP ${response.status}`);
    const body = (await response.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string') throw new UpstreamAuthError(`the token endpoint of MCP server '${server}' gave no access_token`);
    const lifetime = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3_600_000;
    this.tokens.set(server, { token: body.access_token, until: this.now() + Math.max(0, lifetime - 30_000) });
    const issued = this.issued.get(server) ?? new Map<string, number>();
    issued.set(body.access_token, this.now() + lifetime);
    this.issued.set(server, issued);
    return body.access_token;
  }
}

export class UpstreamAuthError extends Error {}

/** Credential values shorter than this are not masked (they would mask ordinary words). */
const MIN_SECRET_LENGTH = 4;
const MAX_MASKERS = 1_000;

/** Every credential value of a server: what must never appear in anything the client or the log gets. */
function secretValuesOf(server: McpServer): string[] {
  const values = Object.values(server.headers ?? {});
  const auth = server.auth;
  if (auth?.type === 'bearer') values.push(auth.token);
  if (auth?.type === 'header') values.push(auth.value);
  if (auth?.type === 'oauth_client_credentials') values.push(auth.client_secret);
  return values;
}
