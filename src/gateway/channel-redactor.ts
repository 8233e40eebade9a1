import { GatewayError } from '../errors.js';

/** Removes what a channel knows to be secret or internal from upstream text. */
export type Redactor = (text: string) => string;

/** Values shorter than this are not matched: a 3-letter key would redact every word that holds it. */
const MIN_LENGTH = 6;

export interface RedactedValues {
  /** API keys, access and secret keys, the values of the channel's own headers. */
  secrets: ReadonlyArray<string | undefined>;
  /** The channel's base URL: its host name or address (with and without the port) is internal. */
  baseUrl: string | undefined;
}

/**
 * Redaction by value (issue 34): an upstream error quoting the channel's credential
 * (`invalid api key vllm-token-Q7r2x9…`) or its internal host name passes every pattern, but the
 * gateway knows both. One case-insensitive alternation, compiled when the channel is built (not
 * per request), longest value first so a value holding another is removed whole.
 */
export function buildChannelRedactor(values: RedactedValues): Redactor {
  const words = new Set<string>();
  for (const secret of values.secrets) if (secret && secret.length >= MIN_LENGTH) words.add(secret);
  const host = hostOf(values.baseUrl);
  if (host) {
    words.add(host.name);
    if (host.withPort) words.add(host.withPort);
  }
  if (words.size === 0) return (text) => text;
  const pattern = new RegExp([...words].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'gi');
  return (text) => text.replace(pattern, '[redacted]');
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
  if (!redact) return body;
  if (typeof body === 'string') return redact(body);
  if (Array.isArray(body)) return body.map((item) => redactBody(item, redact));
  if (body && typeof body === 'object') return Object.fromEntries(Object.entries(body).map(([key, value]) => [key, redactBody(value, redact)]));
  return body;
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

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
