import { describe, expect, it } from 'vitest';
import { vertex } from '../../../src/providers/vertex/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';

/**
 * Every case under test/fixtures/vertex/ but the embeddings through the pairs pairs.ts registers
 * (Gemini's and Anthropic's translators at Vertex's publisher paths, picked by the model; errors
 * by the shape of their body), each call placed by routeCall with the case's project and region.
 */
const cases = loadCases('vertex', (name) => !name.startsWith('embeddings-'));

describe('Vertex AI pairs: golden cases (issue 43)', () => {
  it('covers both publishers in every family, express mode and both error shapes', () => {
    expect(cases.map((c) => c.name)).toEqual([
      'anthropic-messages-claude',
      'anthropic-messages-gemini',
      'chat-claude',
      'chat-claude-stream',
      'chat-error-claude-overloaded',
      'chat-error-claude-quota-google-shaped',
      'chat-error-invalid-argument',
      'chat-error-permission-denied',
      'chat-error-resource-exhausted',
      'chat-gemini',
      'chat-gemini-stream',
      'generate-content-claude',
      'generate-content-gemini',
      'images-gemini',
    ]);
  });

  for (const golden of cases) {
    const family = golden.meta.family as 'chat-completions' | 'messages' | 'anthropic-messages' | 'generate-content' | 'images';
    it(`${golden.name} (${family}): ${golden.meta.description}`, () => runPairCase(golden, vertex.pairs[family] as GoldenPair, { routeCall: vertex.routeCall }));
  }
});
