import { describe, expect, it } from 'vitest';
import { cohere } from '../../../src/providers/cohere/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';

/** Every embeddings- case under test/fixtures/cohere/ through the pure translator (from-embeddings.ts). */
const cases = loadCases('cohere', (name) => name.startsWith('embeddings-'));

describe('embeddings → Cohere golden cases (issue 43)', () => {
  it('covers the request words, both encodings and errors', () => {
    expect(cases.map((c) => c.name)).toEqual(['embeddings-base64-documents', 'embeddings-by-type', 'embeddings-error-400', 'embeddings-error-429', 'embeddings-floats-only', 'embeddings-token-ids-refused']);
  });

  for (const golden of cases) {
    it(`${golden.name}: ${golden.meta.description}`, () => runPairCase(golden, cohere.pairs.embeddings as GoldenPair));
  }
});
