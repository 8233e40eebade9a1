import { GatewayError } from '../errors.js';
import { mintedSecrets, type MintedSecrets } from '../providers/minted-token.js';
import { compileMasker, maskDeep, type Masker } from './secret-masker.js';

/** Removes what a channel knows to be secret or internal from upstream text. */
export type Redactor = (text: string) => string;

const MIN_SECRET_LENGTH = 6;

export interface RedactedValues {
  /** API keys, access and secret keys, the values of the channel's own headers. */
  secrets: ReadonlyArray<string | undefined>;
  /** The channel's base URL: its host name or address (with and without the port) is internal. */
  baseUrl: string | undefined;
}

/**
 * Redaction by value (issue 34), in every encoding (issue 44): an upstream error quoting the
 * channel's credential (`invalid api key vllm-token-Q7r2x9…`), JSON-escaped, URL-encoded or in a
 * `Basic` header, or its internal host name, passes every pattern, but the gateway knows them.
 * The masker of secret-masker.ts (the MCP gateway's too), compiled when the channel is built and
 * again only when a token was minted for some channel (those are masked as well: an upstream that
 * echoes its `Authorization` would hand one back), never per request.
 */
export function buildChannelRedactor(values: RedactedValues, minted: MintedSecrets = mintedSecrets, now: () => number = Date.now): Redactor {
  // A secret shorter than 6 would mask ordinary words; a host name is one from 3 characters.
  const words: string[] = values.secrets.filter((secret): secret is string => secret !== undefined && secret.length >= MIN_SECRET_LENGTH);
  const host = hostOf(values.baseUrl);
  if (host) {
    words.push(host.name);
    if (host.withPort) words.push(host.withPort);
  }
  let compiled: { version: number; mask: Masker } | undefined;
  return (text) => {
    if (compiled?.version !== minted.version) {
      // values() drops expired tokens first (a version of its own).
      const live = minted.values(now());
      compiled = { version: minted.version, mask: compileMasker([...words, ...live], { minLength: 3 }) };
    }
    return compiled.mask(text);
  };
}

/** The error with its message redacted; the same error when nothing in it was secret. */
export function redactError(error: GatewayError, redact: Redactor | undefined): GatewayError {
  if (!redact) return error;
  const message = redact(error.message);
  const vendorMessage = error.vendorMessage === undefined ? undefined : redact(error.vendorMessage);
  if (message === error.message && vendorMessage === error.vendorMessage) return error;
  return error.with({ message, vendorMessage });
}

/**
 * An upstream error body with every string in it redacted, before the vendor's translator reads
 * it: its pattern rules would otherwise cut a credential in pieces that no longer match.
 */
export function redactBody(body: unknown, redact: Redactor | undefined): unknown {
  return redact ? maskDeep(body, redact) : body;
}

function hostOf(baseUrl: string | undefined): { name: string; withPort: string | undefined } | undefined {
  if (!baseUrl) return undefined;
  try {
    const url = new URL(baseUrl);
    const name = url.hostname.replace(/^\[|\]$/g, '');
    return name.length >= 3 ? { name, withPort: url.port ? `${url.hostname}:${url.port}` : undefined } : undefined;
  } catch {
    return undefined;
  }
}

