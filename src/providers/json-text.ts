const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;

/**
 * `text` (a JSON object) with the string value of its top-level `key` replaced, every other byte
 * kept: a pass-through body whose nested parts must reach the upstream exactly as the client sent
 * them (signed thinking blocks). Nested keys of the same name (a tool's input schema) are
 * skipped by depth; string contents are skipped with indexOf, so the scan costs little even on a
 * long agent history. Undefined when the object has no such key, its value is not a string, or
 * it names the key twice (JSON.parse keeps the last, so replacing the first would send the
 * upstream a value that was never checked).
 */
export function replaceTopLevelString(text: string, key: string, value: string): string | undefined {
  const found = topLevelStringAt(text, key);
  if (!found) return undefined;
  return text.slice(0, found.start) + JSON.stringify(value) + text.slice(found.end);
}

/** The bounds (quotes included) of the string value of a top-level key, if it has one. */
function topLevelStringAt(text: string, key: string): { start: number; end: number } | undefined {
  const wanted = JSON.stringify(key);
  let found: { start: number; end: number } | undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      const colonAt = skipSpace(text, end);
      if (depth === 1 && end === i + wanted.length && text.charCodeAt(colonAt) === COLON && text.startsWith(wanted, i)) {
        const valueAt = skipSpace(text, colonAt + 1);
        const valueEnd = text.charCodeAt(valueAt) === QUOTE ? stringEnd(text, valueAt) : -1;
        if (found || valueEnd < 0) return undefined;
        found = { start: valueAt, end: valueEnd };
        i = valueEnd - 1;
        continue;
      }
      i = end - 1;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return found;
}

/** The index just past the closing quote of the string opening at `at`, or -1. */
function stringEnd(text: string, at: number): number {
  for (let i = text.indexOf('"', at + 1); i >= 0; i = text.indexOf('"', i + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i + 1;
  }
  return -1;
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}
