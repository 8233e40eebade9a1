import { describe, expect, it } from 'vitest';
import { voyage } from '../../../src/providers/voyage/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';

/** Every rerank- case under test/fixtures/voyage/ through the pure translator (from-rerank.ts). */
const cases = loadCases('voyage', (name) => name.startsWith('rerank-'));

describe('rerank → Voyage golden cases (issue 43)', () => {
  it('covers the request words and the answer', () => {
    expect(cases.map((c) => c.name)).toEqual(['rerank-top-k']);
  });

  for (const golden of cases) {
    it(`${golden.name}: ${golden.meta.description}`, () => runPairCase(golden, voyage.pairs.rerank as GoldenPair));
  }
});
