import { describe, expect, it } from 'vitest';
import { azureOpenAI } from '../../src/providers/azure-openai/index.js';
import { bedrock } from '../../src/providers/bedrock/index.js';
import { cohere } from '../../src/providers/cohere/index.js';
import { vertex } from '../../src/providers/vertex/index.js';
import { voyage } from '../../src/providers/voyage/index.js';
import type { ProviderModule } from '../../src/providers/types.js';
import { loadCases } from '../helpers/golden.js';

/**
 * Each pair the cloud and embedding vendors declare in their own module (not the chat hub's,
 * which test/providers/chat-hub/ covers) has golden cases for its request, its answer and an
 * upstream error (issue 43): a pair added without them fails here.
 */
const MODULES: ProviderModule[] = [bedrock, azureOpenAI, vertex, cohere, voyage];

describe('golden cases cover every declared pair of the cloud and embedding vendors (issue 43)', () => {
  it.each(MODULES.map((module) => [module.vendor, module] as const))('%s', (vendor, module) => {
    const cases = loadCases(vendor);
    const missing = Object.keys(module.pairs).flatMap((family) => {
      const ofFamily = cases.filter((golden) => golden.meta.family === family);
      const lacks: string[] = [];
      if (!ofFamily.some((golden) => golden.has('upstream-request.json'))) lacks.push(`${family}: request`);
      if (!ofFamily.some((golden) => golden.has('client-response.json') || golden.has('client-stream.sse'))) lacks.push(`${family}: answer`);
      return lacks;
    });
    expect(missing).toEqual([]);
    const families = new Set(cases.map((golden) => golden.meta.family));
    expect([...families].filter((family) => family === undefined || !(family in module.pairs))).toEqual([]);
    expect(cases.some((golden) => golden.has('client-error.json'))).toBe(true);
  });
});
