import { describe, expect, it } from 'vitest';
import { vertex } from '../../../src/providers/vertex/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';

/** Every embeddings- case under test/fixtures/vertex/ through the pure :predict translator. */
const cases = loadCases('vertex', (name) => name.startsWith('embeddings-'));

describe('embeddings → Vertex :predict golden cases (issue 43)', () => {
  it('covers the OpenAI and Gemini-native requests and an error', () => {
    expect(cases.map((c) => c.name)).toEqual(['embeddings-error-invalid-argument', 'embeddings-gemini-native-titles', 'embeddings-predict']);
  });

  for (const golden of cases) {
    it(`${golden.name}: ${golden.meta.description}`, () => runPairCase(golden, vertex.pairs.embeddings as GoldenPair, { routeCall: vertex.routeCall }));
  }
});
