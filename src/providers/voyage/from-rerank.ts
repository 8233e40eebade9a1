import { GatewayError } from '../../errors.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { RerankResponse, RerankResult, RerankTranslatorPair } from '../../protocols/rerank/types.js';
import { documentTexts } from '../openai-compatible/from-rerank.js';
import { upstreamMessage, upstreamStatusError } from '../upstream-errors.js';

/**
 * /v1/rerank → Voyage `POST /v1/rerank` (embeddings.md §5): `top_k` where Cohere says `top_n`,
 * answered as `data[]{index, relevance_score}` with `usage.total_tokens` (Voyage bills rerank by tokens).
 */
export const rerankToVoyage: RerankTranslatorPair = {
  toUpstream: (req, ctx) => ({
    method: 'POST',
    path: '/rerank',
    body: { model: ctx.upstreamModel, query: req.query, documents: documentTexts(req), ...(req.top_n !== undefined ? { top_k: req.top_n } : {}), return_documents: false },
  }),
  fromUpstream: (res, ctx) => fromVoyageRerank(res, ctx),
  fromUpstreamError: (status, body) => upstreamStatusError(status, upstreamMessage(body)),
};

function fromVoyageRerank(res: unknown, ctx: TranslateContext): { body: RerankResponse; usage: Usage } {
  const answer = (res ?? {}) as { data?: unknown; usage?: { total_tokens?: unknown } };
  if (!Array.isArray(answer.data)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream (Voyage) returned rerank results in an unknown shape');
  const results: RerankResult[] = answer.data.map((item: unknown) => {
    const { index, relevance_score: score } = (item ?? {}) as { index?: unknown; relevance_score?: unknown };
    if (typeof index !== 'number' || typeof score !== 'number') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream (Voyage) returned a rerank result without index or score');
    return { index, relevance_score: score };
  });
  results.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const tokens = typeof answer.usage?.total_tokens === 'number' ? answer.usage.total_tokens : 0;
  return {
    body: { id: `rerank-${ctx.requestId}`, model: ctx.model, results, usage: { total_tokens: tokens } },
    usage: { promptTokens: tokens, completionTokens: 0, reasoningTokens: 0, totalTokens: tokens, searches: 1 },
  };
}
