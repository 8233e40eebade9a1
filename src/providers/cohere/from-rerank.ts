import { GatewayError } from '../../errors.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { RerankResponse, RerankResult, RerankTranslatorPair } from '../../protocols/rerank/types.js';
import { documentTexts } from '../openai-compatible/from-rerank.js';
import { upstreamMessage, upstreamStatusError } from '../upstream-errors.js';
import { inputTokensOf, type CohereMeta } from './wire.js';

/**
 * /v1/rerank → Cohere `POST /v2/rerank` (embeddings.md §5): documents as strings, `top_n`; the
 * answer's `results[]{index, relevance_score}` sorted by score, billed in search units (one per
 * query over up to 100 documents), which the usage carries as `searches`.
 */
export const rerankToCohere: RerankTranslatorPair = {
  toUpstream: (req, ctx) => ({
    method: 'POST',
    path: '/v2/rerank',
    body: { model: ctx.upstreamModel, query: req.query, documents: documentTexts(req), ...(req.top_n !== undefined ? { top_n: req.top_n } : {}) },
  }),
  fromUpstream: (res, ctx) => fromCohereRerank(res, ctx),
  fromUpstreamError: (status, body) => upstreamStatusError(status, upstreamMessage(body)),
};

function fromCohereRerank(res: unknown, ctx: TranslateContext): { body: RerankResponse; usage: Usage } {
  const answer = (res ?? {}) as { id?: unknown; results?: unknown; meta?: CohereMeta };
  if (!Array.isArray(answer.results)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream (Cohere) returned rerank results in an unknown shape');
  const results: RerankResult[] = answer.results.map((item: unknown) => {
    const { index, relevance_score: score } = (item ?? {}) as { index?: unknown; relevance_score?: unknown };
    if (typeof index !== 'number' || typeof score !== 'number') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream (Cohere) returned a rerank result without index or score');
    return { index, relevance_score: score };
  });
  results.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const tokens = inputTokensOf(answer.meta) ?? 0;
  const searches = answer.meta?.billed_units?.search_units ?? 1;
  return {
    body: { id: typeof answer.id === 'string' ? answer.id : `rerank-${ctx.requestId}`, model: ctx.model, results, usage: { total_tokens: tokens } },
    usage: { promptTokens: tokens, completionTokens: 0, reasoningTokens: 0, totalTokens: tokens, searches },
  };
}
