import { GatewayError } from '../../errors.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { RerankRequest, RerankResponse, RerankResult, RerankTranslatorPair } from '../../protocols/rerank/types.js';
import { upstreamMessage, upstreamStatusError } from '../upstream-errors.js';

/**
 * /v1/rerank → an OpenAI-compatible server's Jina-shaped `POST /rerank` (vLLM, LocalAI, Jina;
 * protocols/embeddings.md §5): `{model, query, documents, top_n, return_documents}` →
 * `{results:[{index, relevance_score, document?}], usage:{total_tokens}}`. TEI's bare list
 * `[{index, score, text?}]` is read too. Documents go as plain strings, the form every one of
 * them takes; `return_documents` is answered from the request, whatever the server echoes.
 */
export const rerankToOpenAICompatible: RerankTranslatorPair = {
  toUpstream: (req, ctx) => ({
    method: 'POST',
    path: '/rerank',
    body: { ...req, model: ctx.upstreamModel, documents: documentTexts(req), ...(req.top_n !== undefined ? { top_n: req.top_n } : {}), return_documents: false },
  }),
  fromUpstream: (res, ctx) => fromRerankAnswer(res, ctx),
  fromUpstreamError: (status, body) => upstreamStatusError(status, upstreamMessage(body)),
};

export const documentTexts = (req: RerankRequest): string[] => req.documents.map((d) => (typeof d === 'string' ? d : d.text));

function fromRerankAnswer(res: unknown, ctx: TranslateContext): { body: RerankResponse; usage: Usage } {
  const list = Array.isArray(res) ? res : (res as { results?: unknown } | null)?.results;
  if (!Array.isArray(list)) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned rerank results in an unknown shape');
  const results: RerankResult[] = list.map((item: unknown) => {
    const { index, relevance_score: relevance, score } = (item ?? {}) as { index?: unknown; relevance_score?: unknown; score?: unknown };
    const value = typeof relevance === 'number' ? relevance : score;
    if (typeof index !== 'number' || typeof value !== 'number') throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a rerank result without index or score');
    return { index, relevance_score: value };
  });
  results.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  const reported = Array.isArray(res) ? undefined : (res as { usage?: { total_tokens?: unknown; prompt_tokens?: unknown } }).usage;
  const tokens = typeof reported?.total_tokens === 'number' ? reported.total_tokens : typeof reported?.prompt_tokens === 'number' ? reported.prompt_tokens : 0;
  const id = Array.isArray(res) ? undefined : (res as { id?: unknown }).id;
  return {
    body: { id: typeof id === 'string' ? id : `rerank-${ctx.requestId}`, model: ctx.model, results, usage: { total_tokens: tokens } },
    usage: { promptTokens: tokens, completionTokens: 0, reasoningTokens: 0, totalTokens: tokens, searches: 1 },
  };
}
