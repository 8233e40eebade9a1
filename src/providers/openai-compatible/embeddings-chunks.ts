import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import { ByteChunks } from './byte-chunks.js';

/**
 * The pass-through of an OpenAI-compatible embeddings answer as the chunks it arrived in: 2,048
 * vectors are megabytes of JSON, and parsing them only to write them out again would cost the
 * gateway far more than the upstream's own work; even joining and decoding them costs tens of
 * milliseconds and the garbage collections that megabytes of fresh buffers bring. So the answer
 * is checked at a few places and sent on in its own chunks, only the model's name replaced.
 * Taken only when the answer is already what the client asked for: its vectors in the client's
 * encoding (checked on the first), one `index` per input, a `model` to rename and a flat `usage`.
 * Base64 text cannot hold a quote, float arrays hold no strings, so the only `"model"` and
 * `"usage"` keys are the top-level ones. Anything else: undefined, and the answer goes through
 * the parsing translator.
 */
export function embeddingsChunksFastPath(chunks: Buffer[], ctx: TranslateContext): { chunks: Buffer[]; usage: Usage } | undefined {
  const wanted = ctx.vectors;
  if (!wanted) return undefined;
  const body = new ByteChunks(chunks);
  const first = firstVectorAt(body);
  if (first < 0 || body.byteAt(first) !== (wanted.encoding === 'base64' ? QUOTE : OPEN_BRACKET)) return undefined;
  if (countOf(body, INDEX) !== wanted.inputs) return undefined;
  const valueStart = valueAfter(body, MODEL, body.lastIndexOf(MODEL));
  const usageStart = valueAfter(body, USAGE, body.lastIndexOf(USAGE));
  if (valueStart < 0 || usageStart < 0 || body.byteAt(valueStart) !== QUOTE) return undefined;
  const valueEnd = body.indexOf(QUOTE, valueStart + 1);
  if (valueEnd < 0) return undefined;
  const usage = flatObjectAt(body, usageStart);
  if (!usage) return undefined;
  const promptTokens = typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : typeof usage.total_tokens === 'number' ? usage.total_tokens : undefined;
  if (promptTokens === undefined) return undefined;
  return {
    chunks: body.replaced(valueStart, valueEnd + 1, Buffer.from(JSON.stringify(ctx.model))),
    usage: { promptTokens, completionTokens: 0, reasoningTokens: 0, totalTokens: promptTokens },
  };
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
function firstVectorAt(body: ByteChunks): number {
  for (let at = body.indexOf(EMBEDDING); at >= 0; at = body.indexOf(EMBEDDING, at + EMBEDDING.length)) {
    const value = valueAfter(body, EMBEDDING, at);
    if (value >= 0) return value;
  }
  return -1;
}

/** Where the value of the member whose key starts at `keyAt` begins (past `:` and whitespace), or -1. */
function valueAfter(body: ByteChunks, key: Buffer, keyAt: number): number {
  if (keyAt < 0) return -1;
  let at = skipSpace(body, keyAt + key.length);
  if (body.byteAt(at) !== 0x3a) return -1;
  at = skipSpace(body, at + 1);
  return at < body.length ? at : -1;
}

function skipSpace(body: ByteChunks, from: number): number {
  let at = from;
  for (let c = body.byteAt(at); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = body.byteAt(++at));
  return at;
}

function countOf(body: ByteChunks, needle: Buffer): number {
  let count = 0;
  for (let at = body.indexOf(needle); at >= 0; at = body.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** The `{…}` starting at `open`, when it has no nested object (OpenAI's usage); parsed on its own. */
function flatObjectAt(body: ByteChunks, open: number): Record<string, unknown> | undefined {
  if (body.byteAt(open) !== OPEN_BRACE) return undefined;
  const close = body.indexOf(CLOSE_BRACE, open);
  if (close < 0) return undefined;
  const text = body.slice(open, close + 1);
  if (text.subarray(1).includes(OPEN_BRACE)) return undefined;
  try {
    return JSON.parse(text.toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
