import { describe, expect, it } from 'vitest';
import { bedrock } from '../../../src/providers/bedrock/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';
import { bedrockFrames } from './golden-frames.js';

/** Every anthropic-messages-* case under test/fixtures/bedrock/: InvokeModel for Claude, Converse for the rest. */
const cases = loadCases('bedrock', (name) => name.startsWith('anthropic-messages-'));

describe('Anthropic-native requests → Bedrock golden cases (issue 43)', () => {
  it('covers Claude (InvokeModel, streamed and not) and a model that is not Claude', () => {
    expect(cases.map((c) => c.name)).toEqual(['anthropic-messages-claude', 'anthropic-messages-claude-stream', 'anthropic-messages-nova']);
  });

  for (const golden of cases) {
    it(`${golden.name}: ${golden.meta.description}`, () => runPairCase(golden, bedrock.pairs['anthropic-messages'] as GoldenPair, { upstreamBytes: bedrockFrames }));
  }
});
