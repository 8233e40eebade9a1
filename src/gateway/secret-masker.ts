/** Replaces every form of a set of secret values in a text. */
export type Masker = (text: string) => string;

export interface MaskerOptions {
  /** Values shorter than this are not matched: a 3-letter value would mask every word that holds it. */
  minLength?: number;
}

/** What a masked value becomes; plain letters, so masked JSON text stays JSON. */
export const MASK = '[redacted]';
const DEFAULT_MIN_LENGTH = 6;
/** A base64 run shorter than this could be any word: only longer cores are matched. */
const MIN_BASE64_CORE = 8;
/** Values longer than this are searched as strings, not compiled into the pattern. */
const MAX_PATTERN_VALUE = 128;

/**
 * One masker for a set of secret values (issue 44), compiled once per set: when a channel or an
 * MCP server is built, or a token minted. An upstream may echo a credential it was sent in any of
 * the encodings text travels in, so each value is matched
 * - raw, whatever the case;
 * - JSON-escaped, once or nested (`"` as `\"` or `\\\"`, `\` as `\\`, `/` as `\/`, any character
 *   as `\uXXXX`), and HTML-escaped (`&quot;`, `&#34;`);
 * - percent-encoded (`%22`, UTF-8 bytes, a space as `+` or `%20`), mixed freely with the above;
 * - base64 and base64url, at each of the three byte alignments, so the value is also found inside
 *   a longer encoded credential (`Basic base64(user:secret)`): the whole base64 run is masked.
 * Header-shaped values (`Bearer <token>`, `Basic <user:password>`) also mask their credential
 * part, and a JSON key file its key, secret and token fields.
 */
export function compileMasker(values: Iterable<string | undefined>, options: MaskerOptions = {}): Masker {
  const minLength = options.minLength ?? DEFAULT_MIN_LENGTH;
  const words = new Set<string>();
  for (const value of values) {
    if (!value) continue;
    for (const word of [value, ...derivedValues(value)]) if (word.length >= minLength) words.add(word);
  }
  if (words.size === 0) return (text) => text;
  // Longest first, so a value holding another is masked whole.
  const sorted = [...words].sort((a, b) => b.length - a.length);
  // A long value (a minted token) in a pattern costs tens of milliseconds to compile: its forms are
  // searched as plain strings instead, case and all (nobody re-cases a token).
  const long = sorted.filter((word) => word.length > MAX_PATTERN_VALUE);
  const short = sorted.filter((word) => word.length <= MAX_PATTERN_VALUE);
  const literals = long.flatMap((word) => [...literalForms(word).map((form) => ({ form, isBase64: false })), ...base64Cores(word).map((form) => ({ form, isBase64: true }))]);
  const anyForm = short.length === 0 ? undefined : new RegExp(short.map(encodedFormsPattern).join('|'), 'gi');
  const cores = [...new Set(short.flatMap(base64Cores))].sort((a, b) => b.length - a.length);
  const base64 = cores.length === 0 ? undefined : new RegExp(cores.map(escapeRegExp).join('|'), 'g');
  return (text) => {
    let masked = literals.length === 0 ? text : maskLiterals(text, literals);
    if (anyForm) masked = masked.replace(anyForm, MASK);
    return base64 ? maskBase64Runs(masked, base64) : masked;
  };
}

/** A parsed value (an upstream's JSON answer) with every string in it, keys included, masked. */
export function maskDeep<T>(value: T, mask: Masker): T {
  return walk(value, mask) as T;
}

function walk(value: unknown, mask: Masker): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, mask));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [mask(key), walk(item, mask)]));
  return value;
}

/** The credential inside a header-shaped value, and the secret fields of a JSON key file. */
function derivedValues(value: string): string[] {
  const out: string[] = [];
  const scheme = /^([A-Za-z][\w-]*)\s+(\S+)$/.exec(value.trim());
  if (scheme) {
    out.push(scheme[2]!);
    if (scheme[1]!.toLowerCase() === 'basic') {
      const decoded = Buffer.from(scheme[2]!, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0 && !/[\u0000-\u001f\ufffd]/.test(decoded)) out.push(decoded, decoded.slice(colon + 1));
    }
  }
  if (value.trimStart().startsWith('{')) {
    try {
      const parsed = JSON.parse(value) as unknown;
      if (parsed && typeof parsed === 'object') {
        for (const [field, item] of Object.entries(parsed)) if (typeof item === 'string' && /key|secret|token|password/i.test(field)) out.push(item);
      }
    } catch {
      // Not JSON: the value is masked as it is.
    }
  }
  return out;
}

/** A pattern for one value in any character-wise encoding: letters and digits stand for themselves. */
function encodedFormsPattern(value: string): string {
  let pattern = '';
  for (const char of value) pattern += /[A-Za-z0-9]/.test(char) ? char : `(?:${charForms(char).join('|')})`;
  return pattern;
}

const JSON_SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': 'n', '\r': 'r', '\t': 't', '\b': 'b', '\f': 'f' };
const HTML_NAMED: Readonly<Record<string, string>> = { '"': '&quot;', '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&apos;' };

/** A backslash in a pattern. */
const BACKSLASHES = '\\\\';

/** Every form one character takes in JSON (nested escapes too), HTML and percent-encoded text. */
function charForms(char: string): string[] {
  const forms: string[] = [];
  // Backslashes before `"` and `/`: escaped once (`\"`), or inside JSON held as a JSON string (`\\\"`).
  // Bounded (three levels of nesting), so a long run of backslashes costs no backtracking.
  if (char === '"' || char === '/') forms.push(`${BACKSLASHES}{0,7}${escapeRegExp(char)}`);
  else if (char === '\\') forms.push(`${BACKSLASHES}{1,8}`);
  else forms.push(escapeRegExp(char));
  if (JSON_SHORT_ESCAPES[char]) forms.push(`${BACKSLASHES}{1,4}${JSON_SHORT_ESCAPES[char]}`);
  const units: string[] = [];
  for (let i = 0; i < char.length; i++) units.push(`${BACKSLASHES}{1,4}u${char.charCodeAt(i).toString(16).padStart(4, '0')}`);
  forms.push(units.join(''));
  forms.push([...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''));
  if (char === ' ') forms.push('\\+');
  // HTML's entities for the characters it escapes (an error page): a general `&#NN;` costs too much to compile.
  if (HTML_NAMED[char]) forms.push(HTML_NAMED[char]!, `&#${char.charCodeAt(0)};`);
  return forms;
}

/**
 * The base64 text of the value at each byte alignment (0, 1 or 2 bytes before it), cut to the
 * characters that depend on the value alone, in both alphabets.
 */
function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    if (core.length < MIN_BASE64_CORE) continue;
    cores.push(core);
    const url = core.replace(/\+/g, '-').replace(/\//g, '_');
    if (url !== core) cores.push(url);
  }
  return cores;
}

/** The encodings a long value is searched in: raw, JSON-escaped (once, twice, with `\/`), percent- and form-encoded. */
function literalForms(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const forms = [value, json, JSON.stringify(json).slice(1, -1), json.replace(/\//g, '\\/'), encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)];
  return [...new Set(forms)];
}

/** Each occurrence of a form masked (a base64 one with its whole run); overlapping ones masked as one. */
function maskLiterals(text: string, literals: ReadonlyArray<{ form: string; isBase64: boolean }>): string {
  const ranges: Array<[number, number]> = [];
  for (const { form, isBase64 } of literals) {
    for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + form.length)) {
      let start = at;
      let end = at + form.length;
      if (isBase64) {
        while (start > 0 && BASE64_CHAR.test(text[start - 1]!)) start--;
        while (end < text.length && BASE64_CHAR.test(text[end]!)) end++;
      }
      ranges.push([start, end]);
    }
  }
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, end] of ranges) {
    if (end <= from) continue;
    if (start >= from) out += text.slice(from, start) + MASK;
    from = end;
  }
  return out + text.slice(from);
}

const BASE64_CHAR = /[A-Za-z0-9+/=_-]/;

/** Each match of a core widened to its whole base64 run (the rest of `Basic …` would still decode). */
function maskBase64Runs(text: string, cores: RegExp): string {
  cores.lastIndex = 0;
  let out = '';
  let from = 0;
  for (let match = cores.exec(text); match; match = cores.exec(text)) {
    let start = match.index;
    let end = start + match[0].length;
    while (start > from && BASE64_CHAR.test(text[start - 1]!)) start--;
    while (end < text.length && BASE64_CHAR.test(text[end]!)) end++;
    out += text.slice(from, start) + MASK;
    from = end;
    cores.lastIndex = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
