import { describe, expect, it } from 'vitest';
import { voyage } from '../../../src/providers/voyage/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';

/** Every embeddings- case under test/fixtures/voyage/ through the pure translator (from-embeddings.ts). */
const cases = loadCases('voyage', (name) => name.startsWith('embeddings-'));

describe('embeddings → Voyage golden cases (issue 43)', () => {
  it('covers the request words, both encodings and errors', () => {
    expect(cases.map((c) => c.name)).toEqual(['embeddings-base64', 'embeddings-basic', 'embeddings-error-429']);
  });

  for (const golden of cases) {
    it(`${golden.name}: ${golden.meta.description}`, () => runPairCase(golden, voyage.pairs.embeddings as GoldenPair));
  }
});
