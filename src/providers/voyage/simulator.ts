import { embeddingVector, similarity } from '../../simulator/embedding-vectors.js';
import type { SimRequest, SimResponse, SimulatorSpec } from '../../simulator/server.js';
import { countTokens, countTokensInTurns, sumOf } from '../../simulator/text.js';
import { vectorSlot } from '../../simulator/vector-pool.js';
import { VOYAGE_MAX_INPUTS } from './endpoint.js';

/** Voyage's error body: `{detail}` (FastAPI style). */
export const voyageErrorBody = (_status: number, message: string) => ({ detail: message });

const RERANK_DIMENSIONS = 256;

/**
 * A fake Voyage (embeddings.md §4, §5): `/v1/embeddings` with Voyage's own fields (`input_type`
 * query/document, `output_dimension`, `encoding_format` base64 or absent; OpenAI's `dimensions`
 * refused), at most 1,000 inputs; `/v1/rerank` with `top_k`.
 */
export const voyageSimulator: SimulatorSpec = {
  vendor: 'voyage',
  errorBody: voyageErrorBody,
  async handle(req, res) {
    if (req.method !== 'POST' || (req.path !== '/v1/embeddings' && req.path !== '/v1/rerank')) return false;
    if (!/^Bearer \S+$/.test(req.headers.authorization ?? '')) {
      res.json(401, voyageErrorBody(401, 'Provided API key is invalid.'));
      return true;
    }
    if (req.path === '/v1/embeddings') await embed(req, res);
    else rerank(req, res);
    return true;
  },
};

async function embed(req: SimRequest, res: SimResponse): Promise<void> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  if (typeof body.model !== 'string' || !Array.isArray(input) || input.length === 0 || !input.every((t) => typeof t === 'string' && t !== '')) {
    return res.json(400, voyageErrorBody(400, 'Request body is invalid: model and input (non-empty strings) are required.'));
  }
  if (input.length > VOYAGE_MAX_INPUTS) return res.json(400, voyageErrorBody(400, `The batch size limit is ${VOYAGE_MAX_INPUTS}.`));
  if ('dimensions' in body) return res.json(400, voyageErrorBody(400, "Unknown argument 'dimensions'; use 'output_dimension'."));
  if (body.input_type != null && body.input_type !== 'query' && body.input_type !== 'document') return res.json(400, voyageErrorBody(400, "input_type must be null, 'query' or 'document'."));
  if (body.encoding_format != null && body.encoding_format !== 'base64') return res.json(400, voyageErrorBody(400, "encoding_format must be null or 'base64'."));
  const dimensions = typeof body.output_dimension === 'number' ? body.output_dimension : 1024;
  const tokens = sumOf(await countTokensInTurns(input as string[]));
  const data = (input as string[]).map((text, index) => ({ object: 'embedding', embedding: vectorSlot(text, dimensions, body.encoding_format === 'base64' ? 'base64' : 'floats'), index }));
  await res.jsonWithVectors(200, { object: 'list', data, model: body.model, usage: { total_tokens: tokens } });
}

function rerank(req: SimRequest, res: SimResponse): void {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const documents = body.documents;
  if (typeof body.model !== 'string' || typeof body.query !== 'string' || !Array.isArray(documents) || documents.length === 0 || !documents.every((d) => typeof d === 'string')) {
    return res.json(400, voyageErrorBody(400, 'Request body is invalid: model, query and documents (strings) are required.'));
  }
  if ('top_n' in body) return res.json(400, voyageErrorBody(400, "Unknown argument 'top_n'; use 'top_k'."));
  const query = embeddingVector(body.query, RERANK_DIMENSIONS);
  const data = (documents as string[])
    .map((text, index) => ({ relevance_score: Math.max(0, similarity(query, embeddingVector(text, RERANK_DIMENSIONS))), index }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
    .slice(0, typeof body.top_k === 'number' ? body.top_k : undefined);
  const tokens = countTokens(body.query) * documents.length + (documents as string[]).reduce((sum, t) => sum + countTokens(t), 0);
  res.json(200, { object: 'list', data, model: body.model, usage: { total_tokens: tokens } });
}
