/**
 * Request headers as the request log stores them (issue 22): the names and values SDKs send on
 * every request are one byte each (a control character, which no header name or value holds),
 * the rest is kept as it is. About a third of their JSON for an SDK's request, for about the CPU
 * of JSON.stringify (a deflate per row cost several times that, in the writer's batch on the
 * event loop). One line per header; the first character names the format, so rows written as JSON
 * before, and rows of a later table, are still read.
 */
const FORMAT = '\u0001';

/** Codes 0x01 to 0x1f, less tab (allowed inside values) and newline (the separator). */
const CODES = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).filter((c) => c !== '\t' && c !== '\n');

const NAMES = [
  'host', 'connection', 'accept', 'content-type', 'content-length', 'authorization', 'user-agent', 'accept-encoding', 'accept-language',
  'x-stainless-lang', 'x-stainless-package-version', 'x-stainless-os', 'x-stainless-arch', 'x-stainless-runtime', 'x-stainless-runtime-version',
  'x-stainless-retry-count', 'x-stainless-timeout', 'x-stainless-read-timeout', 'x-stainless-async', 'anthropic-version', 'anthropic-beta',
  'x-api-key', 'x-goog-api-key', 'x-goog-api-client', 'traceparent', 'x-request-id', 'sec-fetch-mode', 'x-forwarded-for', 'x-forwarded-proto',
] as const;

const VALUES = [
  'keep-alive', 'close', 'application/json', 'Bearer [masked]', '[masked]', 'js', 'python', 'node', 'CPython', 'Linux', 'MacOS', 'Windows', 'x64',
  'arm64', '0', '600000', '600', 'false', 'gzip, deflate', 'gzip, deflate, br', 'gzip, deflate, br, zstd', '2023-06-01', '*/*', 'text/event-stream',
  'application/json, text/event-stream', 'identity', 'cors', 'https', 'true',
] as const;

const nameCode = new Map<string, string>(NAMES.map((name, i) => [name, CODES[i]!]));
const valueCode = new Map<string, string>(VALUES.map((value, i) => [value, CODES[i]!]));
const nameOf = new Map<string, string>(NAMES.map((name, i) => [CODES[i]!, name]));
const valueOf = new Map<string, string>(VALUES.map((value, i) => [CODES[i]!, value]));

/** Anything a header line could be confused by: a control character other than tab. */
const UNSAFE = /[\u0000-\u0008\u000a-\u001f]/;

export function packHeaders(headers: Record<string, string>): string {
  let out = FORMAT;
  for (const name in headers) {
    const value = headers[name]!;
    // Never met in practice (HTTP forbids them); kept exactly by falling back to JSON.
    if (UNSAFE.test(value) || UNSAFE.test(name) || name.includes(':')) return JSON.stringify(headers);
    out += '\n' + (nameCode.get(name) ?? `${name}:`) + (valueCode.get(value) ?? value);
  }
  return out;
}

/** Headers as stored: packed, or the JSON of rows written before issue 22. */
export function unpackHeaders(stored: string): Record<string, string> {
  if (!stored.startsWith(FORMAT)) return JSON.parse(stored) as Record<string, string>;
  const headers: Record<string, string> = {};
  for (const line of stored.slice(FORMAT.length + 1).split('\n')) {
    if (line === '') continue;
    const known = nameOf.get(line[0]!);
    const at = known === undefined ? line.indexOf(':') : 0;
    const name = known ?? line.slice(0, at);
    const rest = line.slice(at + 1);
    headers[name] = (rest.length === 1 ? valueOf.get(rest) : undefined) ?? rest;
  }
  return headers;
}
