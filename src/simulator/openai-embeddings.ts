import type { SimErrorBody, SimRequest, SimResponse } from './server.js';
import { countTokens, countTokensInTurns, sumOf } from './text.js';
import { vectorSlot } from './vector-pool.js';
import { embeddingVector, similarity } from './embedding-vectors.js';

/** Vector length by upstream model name; others get the smallest OpenAI length. */
const DIMENSIONS: Readonly<Record<string, number>> = { 'text-embedding-3-large': 3072, 'gemini-embedding-001': 3072 };
const DEFAULT_DIMENSIONS = 1536;
/** Rerank scores come from shorter vectors: the ranking is all that matters. */
const RERANK_DIMENSIONS = 256;

/**
 * `POST {basePath}/embeddings` (OpenAI's shape, base64 honoured) and `POST {basePath}/rerank`
 * (Jina's shape) for the OpenAI-compatible simulators, from the hashed bag of words.
 */
export async function embeddingsSimRoutes(basePath: string, errorBody: SimErrorBody, req: SimRequest, res: SimResponse, limits: EmbeddingsSimLimits = {}): Promise<boolean> {
  if (req.method !== 'POST') return false;
  if (req.path === `${basePath}/embeddings`) return answerEmbeddings(errorBody, req, res, limits);
  if (req.path === `${basePath}/rerank`) return answerRerank(errorBody, req, res);
  return false;
}

/** A vendor's own limits on its OpenAI-compatible embeddings endpoint (DashScope: 10 inputs, floats only). */
export interface EmbeddingsSimLimits {
  maxInputs?: number;
  floatOnly?: boolean;
}

async function answerEmbeddings(errorBody: SimErrorBody, req: SimRequest, res: SimResponse, limits: EmbeddingsSimLimits): Promise<boolean> {
  const body = req.body as { model?: unknown; input?: unknown; encoding_format?: unknown; dimensions?: unknown } | undefined;
  const inputs = inputsOf(body?.input);
  if (!body || typeof body.model !== 'string' || !inputs) {
    res.json(400, errorBody(400, 'model and a non-empty input are required'));
    return true;
  }
  if (limits.maxInputs !== undefined && inputs.length > limits.maxInputs) {
    res.json(400, errorBody(400, `batch size is invalid, it should not be larger than ${limits.maxInputs}`));
    return true;
  }
  if (limits.floatOnly && body.encoding_format !== undefined && body.encoding_format !== 'float') {
    res.json(400, errorBody(400, "encoding_format only supports 'float'"));
    return true;
  }
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : (DIMENSIONS[body.model] ?? DEFAULT_DIMENSIONS);
  const isBase64 = body.encoding_format === 'base64';
  const tokens = sumOf(await countTokensInTurns(inputs));
  const data = inputs.map((input, index) => ({ object: 'embedding', index, embedding: vectorSlot(input, dimensions, isBase64 ? 'base64' : 'floats') }));
  await res.jsonWithVectors(200, { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } });
  return true;
}

function answerRerank(errorBody: SimErrorBody, req: SimRequest, res: SimResponse): boolean {
  const body = req.body as { model?: unknown; query?: unknown; documents?: unknown; top_n?: unknown } | undefined;
  const documents = Array.isArray(body?.documents) ? body.documents.map((d: unknown) => (typeof d === 'string' ? d : (d as { text?: unknown } | null)?.text)) : [];
  if (!body || typeof body.model !== 'string' || typeof body.query !== 'string' || documents.length === 0 || !documents.every((d): d is string => typeof d === 'string')) {
    res.json(400, errorBody(400, 'model, query and non-empty documents are required'));
    return true;
  }
  const query = embeddingVector(body.query, RERANK_DIMENSIONS);
  const results = documents
    .map((text, index) => ({ index, relevance_score: Math.max(0, similarity(query, embeddingVector(text, RERANK_DIMENSIONS))) }))
    .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
    .slice(0, typeof body.top_n === 'number' ? body.top_n : undefined);
  const tokens = countTokens(body.query) * documents.length + documents.reduce((sum, text) => sum + countTokens(text), 0);
  res.json(200, { id: `rerank-${embeddingVector(body.query, 8).join('').length}${tokens}`, model: body.model, results, usage: { total_tokens: tokens } });
  return true;
}

function inputsOf(input: unknown): Array<string | number[]> | undefined {
  if (typeof input === 'string') return input ? [input] : undefined;
  if (!Array.isArray(input) || input.length === 0) return undefined;
  if (typeof input[0] === 'number') return [input as number[]];
  return input as Array<string | number[]>;
}
