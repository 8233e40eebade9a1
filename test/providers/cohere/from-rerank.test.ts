import { describe, expect, it } from 'vitest';
import { cohere } from '../../../src/providers/cohere/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';

/** Every rerank- case under test/fixtures/cohere/ through the pure translator (from-rerank.ts). */
const cases = loadCases('cohere', (name) => name.startsWith('rerank-'));

describe('rerank → Cohere golden cases (issue 43)', () => {
  it('covers the request words and the answer', () => {
    expect(cases.map((c) => c.name)).toEqual(['rerank-basic', 'rerank-error-400']);
  });

  for (const golden of cases) {
    it(`${golden.name}: ${golden.meta.description}`, () => runPairCase(golden, cohere.pairs.rerank as GoldenPair));
  }
});
