import { describe, expect, it } from 'vitest';
import { azureOpenAI } from '../../../src/providers/azure-openai/index.js';
import { loadCases } from '../../helpers/golden.js';
import { runPairCase, type GoldenPair } from '../../helpers/golden-pair.js';

/**
 * Every chat-, responses- and embeddings- case under test/fixtures/azure-openai/ through the pairs
 * pairs.ts registers (the OpenAI translators at Azure's paths, content-filter.ts first for errors),
 * each call placed by the vendor's routeCall with the case's channel settings (deployment or v1 form).
 */
const cases = loadCases('azure-openai', (name) => /^(chat|responses|embeddings)-/.test(name));

describe('Azure OpenAI pairs: golden cases (issue 43)', () => {
  it('covers both URL forms, filter annotations and refusals, Responses and embeddings', () => {
    expect(cases.map((c) => c.name)).toEqual([
      'chat-deployment-form',
      'chat-error-429',
      'chat-error-bad-request',
      'chat-error-content-filter',
      'chat-error-content-filter-spec-shape',
      'chat-stream-filter-chunks',
      'chat-v1-form',
      'embeddings-deployment-form',
      'responses-preview',
      'responses-v1-form',
    ]);
  });

  for (const golden of cases) {
    const family = golden.meta.family as 'chat-completions' | 'messages' | 'responses' | 'embeddings';
    it(`${golden.name} (${family}): ${golden.meta.description}`, () => runPairCase(golden, azureOpenAI.pairs[family] as GoldenPair, { routeCall: azureOpenAI.routeCall }));
  }
});
