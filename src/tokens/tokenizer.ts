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

/**
 * Client text is text: `<|endoftext|>` in a prompt is counted as the characters it is (tiktoken's
 * `disallowed_special=()`), where the tokenizer's default throws and the request failed (issue 44).
 */
const AS_TEXT = Object.freeze({ disallowedSpecial: new Set<string>() });

export const encodeTokens = (text: string): number[] => load().encode(text, AS_TEXT);
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
 * before white space where there is one, so ordinary text counts exactly as a whole.
 */
export const PIECE_MAX_CHARS = 128;
/**
 * A run of more characters than this without white space is no word: base64, a minified bundle,
 * one letter held down, CJK (written without spaces). Such a run is counted by its length
 * (`approximateTokens`: four characters a token, one for CJK, erring high) and never reaches the
 * tokenizer, which spent ~4 µs a character on them (16 KB of base64: 50-90 ms; 300 KB of them in
 * one body: seconds; issue 44). Most words, paths and identifiers are shorter and stay exact.
 */
export const WORD_MAX_CHARS = 64;

const LONG_RUN = new RegExp(`\\S{${WORD_MAX_CHARS + 1},}`, 'g');

/**
 * How `countTokens` counts a text of at most EXACT_COUNT_MAX_CHARS: the pieces the tokenizer
 * counts (none longer than PIECE_MAX_CHARS) and the runs estimated by length. Exported so a test
 * can hold the bound without timing anything.
 */
export function countingPlan(text: string): { exact: string[]; estimated: string[] } {
  const exact: string[] = [];
  const estimated: string[] = [];
  let from = 0;
  for (const run of text.matchAll(LONG_RUN)) {
    splitPieces(text, from, run.index, exact);
    estimated.push(run[0]);
    from = run.index + run[0].length;
  }
  splitPieces(text, from, text.length, exact);
  return { exact, estimated };
}

/**
 * `text[start, end)` cut into pieces of at most PIECE_MAX_CHARS, each cut made before white space
 * where there is some (o200k joins a space to the word after it), so the cuts change no count.
 */
function splitPieces(text: string, start: number, end: number, into: string[]): void {
  while (start < end) {
    let cut = Math.min(start + PIECE_MAX_CHARS, end);
    if (cut < end) {
      // No run here is longer than WORD_MAX_CHARS, so white space is never far back.
      let space = cut;
      while (space > start && !isSpace(text.charCodeAt(space))) space--;
      if (space > start) cut = space;
      else if (isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1; // keep surrogate pairs whole
    }
    into.push(text.slice(start, cut));
    start = cut;
  }
}

const isSpace = (code: number): boolean => code === 0x20 || (code >= 0x09 && code <= 0x0d) || code === 0xa0 || code === 0x3000;
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * Counts tokens the way the simulators, count-tokens endpoints and cut-stream usage do: exact
 * o200k for ordinary text, bounded work per word, linear in the text.
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  if (text.length > EXACT_COUNT_MAX_CHARS) return approximateTokens(text);
  const { countTokens: countPiece } = load();
  const { exact, estimated } = countingPlan(text);
  let sum = 0;
  for (const piece of exact) sum += countPiece(piece, AS_TEXT);
  for (const run of estimated) sum += approximateTokens(run);
  return sum;
}
