import { createHash } from 'node:crypto';
import { countTokens as countUncached, decodeTokens as decode, encodeTokens as encode } from '../tokens/tokenizer.js';

/**
 * Replies and token counts are pure functions of their inputs, and clients (the benchmark above
 * all) send the same prompts again and again: a bounded memo spares re-tokenising them, so the
 * simulator's own cost stays small next to the gateway's it is there to measure.
 */
class Memo<V> {
  private readonly entries = new Map<string, V>();
  constructor(private readonly limit: number) {}

  get(key: string, compute: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      // Forget everything at the limit: cheaper than LRU bookkeeping, and a full memo means
      // the prompts are not repeating anyway.
      if (this.entries.size >= this.limit) this.entries.clear();
      value = compute();
      this.entries.set(key, value);
    }
    return value;
  }
}

/**
 * Only short texts are memoised: the simulator also runs inside the gateway (`npm start`), and
 * 1,000 remembered long prompts would pin their size in memory 1,000 times.
 */
const MEMO_MAX_CHARS = 4096;
const tokenCounts = new Memo<number>(1000);
const replies = new Memo<SimulatedText>(1000);

/** Counts tokens as the gateway does (o200k), memoised for short texts. */
export const countTokens = (text: string): number =>
  text.length > MEMO_MAX_CHARS ? countUncached(text) : tokenCounts.get(text, () => countUncached(text));

/** Characters counted between two turns of the event loop (issue 44): a 2,048-input call never counts them all at once. */
const COUNT_TURN_CHARS = 16_384;

/** Each input's tokens (a token-id input counts its ids), giving the event loop a turn every COUNT_TURN_CHARS. */
export async function countTokensInTurns(inputs: ReadonlyArray<string | readonly number[]>): Promise<number[]> {
  const counts: number[] = [];
  let sinceTurn = 0;
  for (const input of inputs) {
    if (typeof input !== 'string') {
      counts.push(input.length);
      continue;
    }
    if (sinceTurn >= COUNT_TURN_CHARS) {
      await new Promise((resolve) => setImmediate(resolve));
      sinceTurn = 0;
    }
    counts.push(countTokens(input));
    sinceTurn += input.length;
  }
  return counts;
}

export const sumOf = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0);

/** Splits text into its tokens' texts, the unit a simulated stream sends per chunk. */
export function tokenPieces(text: string): string[] {
  if (!text) return [];
  const pieces: string[] = [];
  let pending: number[] = [];
  for (const token of encode(text)) {
    pending.push(token);
    const piece = decode(pending);
    // A multi-byte character can span tokens; wait until the piece decodes cleanly.
    if (!piece.includes('\uFFFD')) {
      pieces.push(piece);
      pending = [];
    }
  }
  if (pending.length > 0) pieces.push(decode(pending));
  return pieces;
}

const WORDS = [
  'the', 'gateway', 'answers', 'with', 'a', 'simulated', 'reply', 'so', 'every', 'endpoint', 'can', 'be', 'tried',
  'without', 'an', 'account', 'tokens', 'are', 'counted', 'for', 'real', 'and', 'streams', 'arrive', 'in', 'order',
  'quickly', 'model', 'text', 'request', 'deterministic', 'output', 'is', 'stable',
];

export interface SimulatedTextInput {
  model: string;
  /** The text the reply refers to (usually the last user message). */
  prompt: string;
  maxTokens?: number | undefined;
  stop?: readonly string[] | undefined;
  /** Choice index or any other variation; same inputs give the same text. */
  variant?: number;
  withReasoning?: boolean;
}

export interface SimulatedText {
  reasoning: string;
  reasoningPieces: readonly string[];
  content: string;
  contentPieces: readonly string[];
  finishReason: 'stop' | 'length';
  reasoningTokens: number;
  contentTokens: number;
}

/**
 * A deterministic reply: it quotes the prompt (so tests can aim stop sequences at it), then adds
 * filler words chosen by a hash of the inputs. `maxTokens` cuts the content (finish `length`);
 * a stop sequence cuts before its first occurrence (finish `stop`).
 */
export function simulateText(input: SimulatedTextInput): SimulatedText {
  if (input.prompt.length > MEMO_MAX_CHARS) return composeText(input);
  const key = JSON.stringify([input.model, input.prompt, input.maxTokens ?? null, input.stop ?? null, input.variant ?? 0, input.withReasoning === true]);
  // A copy: callers may replace `content` (JSON mode); the piece arrays are only read.
  return { ...replies.get(key, () => composeText(input)) };
}

function composeText(input: SimulatedTextInput): SimulatedText {
  const excerpt = input.prompt.replace(/\s+/g, ' ').trim().slice(0, 200);
  const seed = createHash('sha256').update(`${input.model}\n${input.variant ?? 0}\n${input.prompt}`).digest();
  const filler: string[] = [];
  for (let i = 0; i < 16; i++) filler.push(WORDS[seed[i]! % WORDS.length]!);
  let content = `This is a simulated reply from ${input.model}. You said: "${excerpt}". ${capitalise(filler.join(' '))}.`;
  let finishReason: 'stop' | 'length' = 'stop';

  let cutAt = -1;
  for (const stop of input.stop ?? []) {
    const at = stop ? content.indexOf(stop) : -1;
    if (at >= 0 && (cutAt < 0 || at < cutAt)) cutAt = at;
  }
  if (cutAt >= 0) content = content.slice(0, cutAt);

  let contentPieces = tokenPieces(content);
  if (input.maxTokens !== undefined && contentPieces.length > input.maxTokens) {
    contentPieces = contentPieces.slice(0, input.maxTokens);
    content = contentPieces.join('');
    finishReason = 'length';
  }

  const reasoning = input.withReasoning ? `The user wrote "${excerpt.slice(0, 80)}". A short, friendly answer fits best.` : '';
  const reasoningPieces = tokenPieces(reasoning);
  return {
    reasoning,
    reasoningPieces,
    content,
    contentPieces,
    finishReason,
    reasoningTokens: reasoningPieces.length,
    contentTokens: contentPieces.length,
  };
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A stable short id derived from the request (simulated response ids). */
export const stableId = (...parts: string[]): string =>
  createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 24);
