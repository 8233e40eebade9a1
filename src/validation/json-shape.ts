import { GatewayError } from '../errors.js';

/**
 * The deepest nesting of objects and arrays a request body may have. Real requests (chat history,
 * tool schemas) stay far below it; deeper bodies only exist to exhaust recursive code downstream
 * (validators, translators, JSON.stringify), which once surfaced as an upstream failure (issue 13).
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The most values (array items and object members) a request body may hold. Parsing, validating
 * and translating a body costs time on the one event loop in proportion to its values, not its
 * bytes: a million one-letter messages froze every tenant for a second (issue 13). Real requests
 * (2,048 chat messages with tools) stay far below it; text and base64 media are single values.
 */
export const MAX_JSON_VALUES = 100_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * One pass over the raw body before it is parsed: rejects nesting past MAX_JSON_DEPTH and more
 * than MAX_JSON_VALUES values (it stops as soon as either is passed), and tells
 * whether any number outside strings has an exponent (the only way to write a number JSON.parse
 * turns into ±Infinity). String contents are skipped with indexOf, so a body of long texts costs
 * little more than a memchr. Malformed JSON is left for the parser to report.
 */
export function scanJsonText(text: string): { hasExponent: boolean; members: number } {
  let depth = 0;
  let hasExponent = false;
  // Each object member has exactly one colon outside strings: JSON.parse keeps one per distinct key.
  let members = 0;
  // Each value after the first in a container is preceded by a comma; each container opens once.
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) break;
    } else if (c === 0x3a) {
      members++;
    } else if (c === 0x2c) {
      if (++values > MAX_JSON_VALUES) throw tooManyValues();
    } else if (c === 0x7b || c === 0x5b) {
      if (++values > MAX_JSON_VALUES) throw tooManyValues();
      if (++depth > MAX_JSON_DEPTH) {
        throw new GatewayError('GW_REQ_INVALID_PARAM', `Request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`, { param: 'body' });
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if ((c === 0x65 || c === 0x45) && isDigit(text.charCodeAt(i - 1))) {
      hasExponent = true;
    }
  }
  return { hasExponent, members };
}

const tooManyValues = () =>
  new GatewayError('GW_REQ_TOO_LARGE', `Request body holds more than ${String(MAX_JSON_VALUES).replace(/\B(?=(\d{3})+$)/g, ',')} values (array items and object members); send fewer items per request`, { param: 'body' });

/** Throws when the parsed body holds a number JSON could only express as ±Infinity (`1e400`). */
export function assertFiniteNumbers(value: unknown, path = 'body'): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'${path}' is a number too large to represent`, { param: path });
    }
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) assertFiniteNumbers(value[i], `${path}[${i}]`);
  } else if (value && typeof value === 'object') {
    for (const key in value) assertFiniteNumbers((value as Record<string, unknown>)[key], path === 'body' ? key : `${path}.${key}`);
  }
}

/**
 * Throws when the parsed body has fewer object members than its text (`members` from
 * scanJsonText): a key was given twice in one object, and JSON.parse silently kept the last one.
 * `{"model":"a","\u006dodel":"b"}` would otherwise be validated, limited and billed as one model
 * and forwarded as sent to a vendor that reads the other (issue 34). Counting is a walk over the
 * parsed objects only, far cheaper than the parse itself.
 */
export function assertNoDuplicateKeys(body: unknown, members: number): void {
  if (members === 0 || countMembers(body) === members) return;
  throw new GatewayError('GW_REQ_INVALID_JSON', 'Request body gives the same key twice in one object; send each key once', { param: 'body' });
}

function countMembers(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) count += countMembers(value[i]);
    return count;
  }
  for (const key in value) count += 1 + countMembers((value as Record<string, unknown>)[key]);
  return count;
}

/**
 * The string value of a top-level member of a JSON object text, found without parsing it: a scan
 * that jumps over string contents and stops at the member. Undefined when the text is not an
 * object, lacks the member (spelled as `name`, no escapes), or gives it a non-string value.
 * For a look at `model` before a large body is parsed (plugins/json-body.ts); the parse that
 * follows, when there is one, stays the judge of what the body says.
 */
export function topLevelString(text: string, name: string): string | undefined {
  const wanted = `"${name}"`;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const close = closingQuote(text, i);
      if (close < 0) return undefined;
      if (depth === 1 && close - i + 1 === wanted.length && text.startsWith(wanted, i)) {
        const colon = nextNonSpace(text, close + 1);
        if (text.charCodeAt(colon) === 0x3a) return stringAt(text, nextNonSpace(text, colon + 1));
      }
      i = close;
    } else if (c === 0x7b || c === 0x5b) {
      // The top level must be an object: an array's items are not its members.
      if (depth === 0 && c === 0x5b) return undefined;
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return undefined;
}

function nextNonSpace(text: string, from: number): number {
  let at = from;
  while (at < text.length && (text.charCodeAt(at) === 0x20 || text.charCodeAt(at) === 0x0a || text.charCodeAt(at) === 0x0d || text.charCodeAt(at) === 0x09)) at++;
  return at;
}

function stringAt(text: string, open: number): string | undefined {
  if (text.charCodeAt(open) !== QUOTE) return undefined;
  const close = closingQuote(text, open);
  if (close < 0) return undefined;
  const raw = text.slice(open + 1, close);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(open, close + 1)) as string;
  } catch {
    return undefined;
  }
}

/** Index of the quote that closes the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

const isDigit = (c: number): boolean => (c >= 0x30 && c <= 0x39) || c === 0x2e;
