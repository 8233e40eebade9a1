import { createRequire } from 'node:module';
import { approximateTokens } from './approximate.js';

type GptTokenizer = typeof import('gpt-tokenizer');

let tokenizer: GptTokenizer | undefined;

/**
 * The o200k tokenizer, loaded on first use: its tables cost ~70 MB of memory, which a gateway
 * with real upstreams and no token limits never needs to pay.
 */
function load(): GptTokenizer {
  tokenizer ??= createRequire(import.meta.url)('gpt-tokenizer') as GptTokenizer;
  return tokenizer;
}

export const encodeTokens = (text: string): number[] => load().encode(text);
export const decodeTokens = (tokens: number[]): string => load().decode(tokens);

/**
 * Texts up to this length are counted exactly; longer ones get the linear estimate. Counting
 * runs on the request thread (simulators, cut streams, countTokens), so its worst case must stay
 * a few milliseconds whatever a client sends (issue 13).
 */
export const EXACT_COUNT_MAX_CHARS = 16_384;
/**
 * BPE merging is quadratic in the length of one pre-token (a run of one letter, CJK without
 * punctuation: 40 KB took 4 s). The tokenizer never sees a piece longer than this; pieces end
 * before a space where there is one, so ordinary text counts exactly as a whole, and an
 * unbroken run is off by at most one token per cut.
 */
const PIECE_MAX_CHARS = 128;

/** Counts tokens the way the simulators and cut-stream usage do: linear and bounded. */
export function countTokens(text: string): number {
  if (!text) return 0;
  if (text.length > EXACT_COUNT_MAX_CHARS) return approximateTokens(text);
  const { encode } = load();
  let sum = 0;
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + PIECE_MAX_CHARS, text.length);
    if (end < text.length) {
      const space = text.lastIndexOf(' ', end);
      if (space > start) end = space;
      else if (text.charCodeAt(end - 1) >= 0xd800 && text.charCodeAt(end - 1) <= 0xdbff) end -= 1; // keep surrogate pairs whole
    }
    sum += encode(text.slice(start, end)).length;
    start = end;
  }
  return sum;
}
