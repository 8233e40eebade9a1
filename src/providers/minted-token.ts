import { createHash } from 'node:crypto';
import { GatewayError } from '../errors.js';
import { sanitizeUpstreamMessage } from './upstream-errors.js';

/** An access token a cloud's identity service minted for a channel (or AWS's temporary keys), and when it stops working. */
export interface MintedToken<T = string> {
  token: T;
  expiresAtMs: number;
}

/** Renewed this long before it expires (google-auth-library's 5 minutes), or a quarter of a short lifetime. */
const REFRESH_EARLY_MS = 5 * 60_000;
/** Distinct credentials kept at once: a channel edited many times leaves no trail of tokens. */
const MAX_ENTRIES = 256;
/** One mint may take this long (the identity service's answer), then the request fails upstream-auth style. */
export const MINT_TIMEOUT_MS = 15_000;

interface Entry<T> {
  current?: MintedToken<T> & { refreshAtMs: number };
  pending?: Promise<MintedToken<T>>;
}

/**
 * Every minted secret still valid (issue 44): an upstream that echoes the `Authorization` it got
 * hands back a token the channel's configuration never held, so the channel redactor masks these
 * too. Values leave once expired; `version` changes with the set, so a masker recompiles only then.
 */
export class MintedSecrets {
  private readonly live = new Map<string, number>();
  version = 0;

  add(values: readonly string[], expiresAtMs: number, nowMs: number): void {
    let changed = this.prune(nowMs);
    for (const value of values) {
      if (!value) continue;
      if (!this.live.has(value)) changed = true;
      this.live.set(value, Math.max(expiresAtMs, this.live.get(value) ?? 0));
    }
    // Bounded like the token caches: the oldest go first (they expire first).
    while (this.live.size > MAX_ENTRIES * 4) this.live.delete(this.live.keys().next().value!);
    if (changed) this.version++;
  }

  /** The values still valid at `nowMs`. */
  values(nowMs: number): string[] {
    if (this.prune(nowMs)) this.version++;
    return [...this.live.keys()];
  }

  private prune(nowMs: number): boolean {
    let pruned = false;
    for (const [value, until] of this.live) {
      if (until > nowMs) continue;
      this.live.delete(value);
      pruned = true;
    }
    return pruned;
  }
}

/** The secrets of every token minted in this process (the caches below are per vendor module, so this is too). */
export const mintedSecrets = new MintedSecrets();

/** A minted token's secret strings: the token itself, or each string field of a key set (AWS's). */
function secretsOf(token: unknown): string[] {
  if (typeof token === 'string') return [token];
  if (token && typeof token === 'object') return Object.values(token).filter((value): value is string => typeof value === 'string');
  return [];
}

/**
 * Access tokens minted per channel credentials (Azure's Entra ID client credentials, a Vertex
 * service-account key, AWS role credentials): cached until shortly before they expire, one mint
 * for all concurrent callers. Keyed by a hash of the credentials, so a channel edited to new
 * credentials mints anew and the secrets themselves are never map keys.
 */
export class MintedTokenCache<T = string> {
  private readonly entries = new Map<string, Entry<T>>();

  /** A token for `credentialParts`, minting one (once, whoever else is waiting) when none is fresh. */
  async tokenFor(credentialParts: readonly (string | undefined)[], nowMs: number, mint: () => Promise<MintedToken<T>>): Promise<T> {
    const key = createHash('sha256').update(credentialParts.map((part) => part ?? '').join('\u0000')).digest('hex');
    let entry = this.entries.get(key);
    if (entry?.current && nowMs < entry.current.refreshAtMs) return entry.current.token;
    if (!entry) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      entry = {};
      this.entries.set(key, entry);
    }
    const slot = entry;
    slot.pending ??= mint()
      .then((minted) => {
        const lifetime = Math.max(0, minted.expiresAtMs - nowMs);
        slot.current = { ...minted, refreshAtMs: minted.expiresAtMs - Math.min(REFRESH_EARLY_MS, lifetime / 4) };
        mintedSecrets.add(secretsOf(minted.token), minted.expiresAtMs, nowMs);
        return minted;
      })
      .finally(() => {
        slot.pending = undefined;
      });
    return (await slot.pending).token;
  }

  /** Forgets a token the upstream refused (revoked, or rotated credentials): the next call mints anew. */
  forget(credentialParts: readonly (string | undefined)[]): void {
    this.entries.delete(createHash('sha256').update(credentialParts.map((part) => part ?? '').join('\u0000')).digest('hex'));
  }
}

/**
 * Posts a form to an identity service's token endpoint and reads `{access_token, expires_in}`.
 * Every failure is an upstream-auth error that names the service and its OAuth `error` code
 * only: the answer's description may quote the client id or the assertion.
 */
export async function fetchAccessToken(service: string, tokenUrl: string, form: Record<string, string>, nowMs: number): Promise<MintedToken> {
  let response: Response;
  try {
    response = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      // A token endpoint has no reason to redirect; following one would take the call past the link-local guard.
      redirect: 'error',
      signal: AbortSignal.timeout(MINT_TIMEOUT_MS),
    });
  } catch (error) {
    throw new GatewayError('GW_UPSTREAM_AUTH', `Could not reach ${service} to obtain an access token`, { cause: error });
  }
  const answer = (await response.json().catch(() => undefined)) as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } | undefined;
  if (!response.ok || typeof answer?.access_token !== 'string' || answer.access_token === '') {
    const code = typeof answer?.error === 'string' && /^[a-z_]{1,40}$/.test(answer.error) ? ` (${answer.error})` : ` (HTTP ${response.status})`;
    // The service's own explanation (AADSTS7000215: Invalid client secret…) is for the operator's views only.
    const described = typeof answer?.error_description === 'string' ? sanitizeUpstreamMessage(answer.error_description) : undefined;
    throw new GatewayError('GW_UPSTREAM_AUTH', `${service} refused to issue an access token for the channel's credentials${code}`, { vendorMessage: described });
  }
  const seconds = Number(answer.expires_in);
  return { token: answer.access_token, expiresAtMs: nowMs + (Number.isFinite(seconds) && seconds > 0 ? seconds : 3600) * 1000 };
}
