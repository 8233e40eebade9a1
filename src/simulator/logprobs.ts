import { createHash } from 'node:crypto';

/**
 * Simulated token log-probabilities (OpenAI's ChatCompletionTokenLogprob shape): one entry per
 * token piece, a deterministic logprob in (-2, 0], and `topCount` alternatives led by the token
 * itself, each less likely than the one before.
 */
export interface SimTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
}

const ALTERNATIVES = [' the', ' a', ' and', '.', ',', ' reply', ' model', ' text'];

const bytesOf = (text: string): number[] => [...Buffer.from(text, 'utf8')];

export function tokenLogprobs(pieces: readonly string[], topCount: number): SimTokenLogprob[] {
  return pieces.map((token, index) => {
    const hash = createHash('sha256').update(`${index}\n${token}`).digest();
    const logprob = -Math.round((hash.readUInt16BE(0) / 65_536) * 2_000) / 1_000;
    const top = [{ token, logprob, bytes: bytesOf(token) }];
    for (let i = 0; top.length < topCount && i < ALTERNATIVES.length; i++) {
      const alternative = ALTERNATIVES[(hash[2]! + i) % ALTERNATIVES.length]!;
      if (alternative === token) continue;
      top.push({ token: alternative, logprob: Math.round((top[top.length - 1]!.logprob - 0.5 - i * 0.25) * 1_000) / 1_000, bytes: bytesOf(alternative) });
    }
    return { token, logprob, bytes: bytesOf(token), top_logprobs: top.slice(0, topCount) };
  });
}
