import { embeddingVector, similarity } from '../../simulator/embedding-vectors.js';
import type { SimRequest, SimResponse, SimulatorSpec } from '../../simulator/server.js';
import { countTokens, countTokensInTurns, sumOf } from '../../simulator/text.js';
import { vectorSlot } from '../../simulator/vector-pool.js';
import { COHERE_MAX_TEXTS } from './endpoint.js';

/** Cohere's error body: a top-level `message` (cohere-typescript's error types). */
export const cohereErrorBody = (_status: number, message: string) => ({ message });

const INPUT_TYPES = new Set(['search_document', 'search_query', 'classification', 'clustering', 'image']);
const EMBEDDING_TYPES = new Set(['float', 'int8', 'uint8', 'binary', 'ubinary', 'base64']);
const RERANK_DIMENSIONS = 256;

/**
 * A fake Cohere v2 (embeddings.md §3, §5): `/v2/embed` answers by type (only `float` is
 * simulated; others are refused), at most 96 texts, `input_type` required; `/v2/rerank` scores
 * by the hashed bag of words and bills one search unit.
 */
export const cohereSimulator: SimulatorSpec = {
  vendor: 'cohere',
  errorBody: cohereErrorBody,
  async handle(req, res) {
    if (req.method !== 'POST' || (req.path !== '/v2/embed' && req.path !== '/v2/rerank')) return false;
    if (!/^Bearer \S+$/.test(req.headers.authorization ?? '')) {
      res.json(401, cohereErrorBody(401, 'no api key supplied'));
      return true;
    }
    if (req.path === '/v2/embed') await embed(req, res);
    else rerank(req, res);
    return true;
  },
};

async function embed(req: SimRequest, res: SimResponse): Promise<void> {
  const body = (req.body ?? {}) as { model?: unknown; texts?: unknown; input_type?: unknown; embedding_types?: unknown; output_dimension?: unknown };
  const texts = body.texts;
  if (typeof body.model !== 'string' || !Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string')) {
    return res.json(400, cohereErrorBody(400, 'invalid request: model and texts are required'));
  }
  if (texts.length > COHERE_MAX_TEXTS) return res.json(400, cohereErrorBody(400, `invalid request: texts must be at most ${COHERE_MAX_TEXTS} items`));
  if (typeof body.input_type !== 'string' || !INPUT_TYPES.has(body.input_type)) return res.json(400, cohereErrorBody(400, 'invalid request: input_type is required for embed v3 models and above'));
  const types = Array.isArray(body.embedding_types) ? body.embedding_types : ['float'];
  if (!types.every((t) => EMBEDDING_TYPES.has(t as string))) return res.json(400, cohereErrorBody(400, 'invalid request: unknown embedding type'));
  if (!types.every((t) => t === 'float')) return res.json(400, cohereErrorBody(400, 'the simulator answers the float embedding type only'));
  const dimensions = typeof body.output_dimension === 'number' ? body.output_dimension : 1536;
  const tokens = sumOf(await countTokensInTurns(texts as string[]));
  await res.jsonWithVectors(200, {
    id: `sim-embed-${tokens}`,
    response_type: 'embeddings_by_type',
    embeddings: { float: (texts as string[]).map((t) => vectorSlot(t, dimensions)) },
    texts,
    meta: { api_version: { version: '2' }, billed_units: { input_tokens: tokens } },
  });
}

function rerank(req: SimRequest, res: SimResponse): void {
  const body = (req.body ?? {}) as { model?: unknown; query?: unknown; documents?: unknown; top_n?: unknown };
  const documents = body.documents;
  if (typeof body.model !== 'string' || typeof body.query !== 'string' || !Array.isArray(documents) || documents.length === 0 || !documents.every((d) => typeof d === 'string')) {
    return res.json(400, cohereErrorBody(400, 'invalid request: model, query and documents (strings) are required'));
  }
  const query = embeddingVector(body.query, RERANK_DIMENSIONS);
  const results = (documents as string[])
    .map((text, index) => ({ index, relevance_score: Math.max(0, similarity(query, embeddingVector(text, RERANK_DIMENSIONS))) }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
    .slice(0, typeof body.top_n === 'number' ? body.top_n : undefined);
  const tokens = countTokens(body.query) * documents.length + (documents as string[]).reduce((sum, t) => sum + countTokens(t), 0);
  res.json(200, { id: `sim-rerank-${tokens}`, results, meta: { api_version: { version: '2' }, billed_units: { search_units: 1 }, tokens: { input_tokens: tokens } } });
}
