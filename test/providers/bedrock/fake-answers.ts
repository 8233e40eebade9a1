import type { FakeAnswer } from './fake-bedrock.js';

/** A Converse answer of one text block, with the usage Bedrock reports. */
export const converseText = (text: string, usage: Record<string, number> = { inputTokens: 10, outputTokens: 4, totalTokens: 14 }): FakeAnswer => ({
  json: { output: { message: { role: 'assistant', content: [{ text }] } }, stopReason: 'end_turn', usage, metrics: { latencyMs: 5 } },
});
