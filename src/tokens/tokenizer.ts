import { createRequire } from 'node:module';

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

/** Counts tokens the way the simulators and the token-per-minute estimates do. */
export const countTokens = (text: string): number => (text ? encodeTokens(text).length : 0);
