import { describe, expect, it } from 'vitest';
import { bedrock } from '../../../src/providers/bedrock/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';
import { bedrockFrames } from './golden-frames.js';

/**
 * Every chat-* case under test/fixtures/bedrock/ through the pure Converse translators
 * (from-chat-completions.ts, its stream translator and errors.ts), via the pair the provider
 * registers for the case's family; streams as real event-stream frames through the pair's decoder.
 */
const cases = loadCases('bedrock', (name) => name.startsWith('chat-'));

describe('chat-shaped requests → Bedrock Converse golden cases (issue 43)', () => {
  it('covers the Converse behaviours', () => {
    expect(cases.map((c) => c.name)).toEqual([
      'chat-basic',
      'chat-error-access-denied',
      'chat-error-model-not-ready',
      'chat-error-validation',
      'chat-image-bytes',
      'chat-image-url-refused',
      'chat-reasoning-and-cache',
      'chat-stream',
      'chat-stream-throttled',
      'chat-stream-tool-call',
      'chat-tool-call',
    ]);
  });

  for (const golden of cases) {
    const family = golden.meta.family as 'chat-completions' | 'messages';
    it(`${golden.name} (${family}): ${golden.meta.description}`, () => runPairCase(golden, bedrock.pairs[family] as GoldenPair, { upstreamBytes: bedrockFrames }));
  }
});
