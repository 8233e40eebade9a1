import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';

/**
 * The pass-through of an OpenAI-compatible embeddings answer as bytes: 2,048 vectors are megabytes
 * of JSON, and parsing them only to write them out again would cost the gateway far more than the
 * upstream's own work; even decoding them to a string and encoding it again costs tens of
 * milliseconds. So the answer is checked and edited as the Buffer it arrived in. Taken only when
 * the answer is already what the client asked for: its vectors in the client's encoding (checked
 * on the first), one `index` per input, a `model` to rename and a flat `usage`. Base64 text cannot
 * hold a quote, float arrays hold no strings, so the only `"model"` and `"usage"` keys are the
 * top-level ones. Anything else: undefined, and the answer goes through the parsing translator.
 *
 * `bytes` is the caller's own buffer (UpstreamBody.ownBytes): the model is renamed in place when
 * the public id is no longer than the upstream's, the rest of the old value becoming whitespace
 * (valid JSON between tokens), so the answer is sent without a copy.
 */
export function embeddingsBytesFastPath(bytes: Buffer, ctx: TranslateContext): { body: Buffer; usage: Usage } | undefined {
  const wanted = ctx.vectors;
  if (!wanted) return undefined;
  const first = firstVectorAt(bytes);
  if (first < 0 || bytes[first] !== (wanted.encoding === 'base64' ? QUOTE : OPEN_BRACKET)) return undefined;
  if (countOf(bytes, INDEX) !== wanted.inputs) return undefined;
  const valueStart = valueAfter(bytes, MODEL, bytes.lastIndexOf(MODEL));
  const usageStart = valueAfter(bytes, USAGE, bytes.lastIndexOf(USAGE));
  if (valueStart < 0 || usageStart < 0 || bytes[valueStart] !== QUOTE) return undefined;
  const valueEnd = bytes.indexOf(QUOTE, valueStart + 1);
  if (valueEnd < 0) return undefined;
  const usage = flatObjectAt(bytes, usageStart);
  if (!usage) return undefined;
  const promptTokens = typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : typeof usage.total_tokens === 'number' ? usage.total_tokens : undefined;
  if (promptTokens === undefined) return undefined;
  return { body: renamed(bytes, valueStart, valueEnd, Buffer.from(JSON.stringify(ctx.model))), usage: { promptTokens, completionTokens: 0, reasoningTokens: 0, totalTokens: promptTokens } };
}

const QUOTE = 0x22;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const EMBEDDING = Buffer.from('"embedding"');
const INDEX = Buffer.from('"index"');
const MODEL = Buffer.from('"model"');
const USAGE = Buffer.from('"usage"');

/** Where the first `"embedding":` value begins (the word is also the value of each item's `object`), or -1. */
function firstVectorAt(bytes: Buffer): number {
  for (let at = bytes.indexOf(EMBEDDING); at >= 0; at = bytes.indexOf(EMBEDDING, at + EMBEDDING.length)) {
    const value = valueAfter(bytes, EMBEDDING, at);
    if (value >= 0) return value;
  }
  return -1;
}

/** The string value spanning `start`..`end` (its quotes) replaced by `model`, in place where it fits. */
function renamed(bytes: Buffer, start: number, end: number, model: Buffer): Buffer {
  const room = end + 1 - start;
  if (model.length > room) return Buffer.concat([bytes.subarray(0, start), model, bytes.subarray(end + 1)]);
  model.copy(bytes, start);
  bytes.fill(0x20, start + model.length, end + 1);
  return bytes;
}

/** Where the value of the member whose key starts at `keyAt` begins (past `:` and whitespace), or -1. */
function valueAfter(bytes: Buffer, key: Buffer, keyAt: number): number {
  if (keyAt < 0) return -1;
  let at = skipSpace(bytes, keyAt + key.length);
  if (bytes[at] !== 0x3a) return -1;
  at = skipSpace(bytes, at + 1);
  return at < bytes.length ? at : -1;
}

function skipSpace(bytes: Buffer, from: number): number {
  let at = from;
  while (at < bytes.length && (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09)) at++;
  return at;
}

function countOf(bytes: Buffer, needle: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** The `{…}` starting at `open`, when it has no nested object (OpenAI's usage); parsed on its own. */
function flatObjectAt(bytes: Buffer, open: number): Record<string, unknown> | undefined {
  if (bytes[open] !== OPEN_BRACE) return undefined;
  const close = bytes.indexOf(CLOSE_BRACE, open);
  if (close < 0 || bytes.subarray(open + 1, close).includes(OPEN_BRACE)) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8', open, close + 1)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
