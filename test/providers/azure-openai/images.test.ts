import { describe, expect, it } from 'vitest';
import { azureOpenAI } from '../../../src/providers/azure-openai/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';

/** Every images- case under test/fixtures/azure-openai/ through images.ts at the deployment's path. */
const cases = loadCases('azure-openai', (name) => name.startsWith('images-'));

describe('OpenAI Images → Azure deployments: golden cases (issue 43)', () => {
  it('covers gpt-image, DALL·E and a refused prompt', () => {
    expect(cases.map((c) => c.name)).toEqual(['images-dall-e-3', 'images-error-content-filter', 'images-gpt-image']);
  });

  for (const golden of cases) {
    it(`${golden.name}: ${golden.meta.description}`, () => runPairCase(golden, azureOpenAI.pairs.images as GoldenPair, { routeCall: azureOpenAI.routeCall }));
  }
});
