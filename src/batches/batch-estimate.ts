import type { GatewayDeps } from '../gateway-deps.js';
import type { BatchEndpoint } from '../contracts/batch-line.js';
import type { RequestFacts } from '../contracts/request-facts.js';
import { chatCompletionsFacts } from '../api/chat-completions/facts.js';
import { responsesFacts } from '../api/responses/facts.js';
import { textsFacts } from '../api/embeddings/facts.js';
import type { OpenAIChatRequest } from '../protocols/openai-chat/types.js';
import { batchDiscountOf, batchPriceOf } from '../catalog/batch-price.js';
import { reasoningCeilingOf, reasoningReserve, worstCaseCost } from '../usage/worst-case.js';
import { jsonlLines } from './input-lines.js';

/** Each endpoint's facts of a line's body, as its sync route makes them. */
const FACTS: Record<BatchEndpoint, (body: Record<string, unknown>) => RequestFacts> = {
  '/v1/chat/completions': (body) => chatCompletionsFacts(body as unknown as OpenAIChatRequest),
  '/v1/responses': (body) => responsesFacts(body),
  '/v1/embeddings': (body) => textsFacts(embeddingTexts(body.input)),
};

/**
 * The most a batch's input file can cost at the batch price of lines the gateway runs itself
 * (issue 46): the sum of each line's worst case as the sync endpoint holds it against a budget
 * (usage/worst-case.ts). Lines that will fail validation or their endpoint's checks add nothing:
 * they are never billed.
 */
export async function worstCaseOfFile(deps: GatewayDeps, endpoint: BatchEndpoint, content: AsyncIterable<Uint8Array>): Promise<number> {
  let total = 0;
  for await (const { text } of jsonlLines(content)) {
    try {
      total += worstCaseOfLine(deps, endpoint, (JSON.parse(text) as { body: Record<string, unknown> }).body);
    } catch {
      // A line its endpoint would refuse runs nothing and is never billed.
    }
  }
  return total;
}

function worstCaseOfLine(deps: GatewayDeps, endpoint: BatchEndpoint, body: Record<string, unknown>): number {
  const model = body.model;
  if (typeof model !== 'string') return 0;
  const facts = FACTS[endpoint](body);
  const candidates = deps.prices.candidatesFor(model).map((price) => batchPriceOf(price, batchDiscountOf(price, 'self', undefined)));
  return worstCaseCost(candidates, facts, 0, reasoningReserve(reasoningCeilingOf(model, deps.catalog.find(model)), facts));
}

function embeddingTexts(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  return Array.isArray(input) ? input.filter((item): item is string => typeof item === 'string') : [];
}
