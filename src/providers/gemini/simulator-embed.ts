import { vectorSlot, type VectorSlot } from '../../simulator/vector-pool.js';
import type { SimRequest, SimResponse } from '../../simulator/server.js';
import { GEMINI_MAX_BATCH, type GeminiEmbedContentRequest } from '../../protocols/gemini-embed/types.js';

export const EMBED_PATH = /^\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/;
const DEFAULT_DIMENSIONS = 3072;

type ErrorBody = (code: number, message: string) => unknown;

/**
 * The simulator's `embedContent` and `batchEmbedContents` (embeddings.md §2), from the hashed bag
 * of words: one vector per request, in order; at most 100 requests a batch, as the API enforces.
 * Undefined when the path is not an embedding method.
 */
export function answerGeminiEmbed(req: SimRequest, res: SimResponse, errorBody: ErrorBody): Promise<boolean> | boolean | undefined {
  const match = req.method === 'POST' ? EMBED_PATH.exec(req.path) : null;
  if (!match) return undefined;
  const model = decodeURIComponent(match[1]!);
  const body = req.body as { requests?: unknown } | GeminiEmbedContentRequest | undefined;
  const requests = match[2] === 'embedContent' ? [body] : (body as { requests?: unknown } | undefined)?.requests;
  if (!Array.isArray(requests) || requests.length === 0) {
    res.json(400, errorBody(400, '* BatchEmbedContentsRequest.requests: must be a non-empty list'));
    return true;
  }
  if (requests.length > GEMINI_MAX_BATCH) {
    res.json(400, errorBody(400, `* BatchEmbedContentsRequest.requests: at most ${GEMINI_MAX_BATCH} requests can be in one batch`));
    return true;
  }
  const values: VectorSlot[] = [];
  for (const item of requests as Array<GeminiEmbedContentRequest | undefined>) {
    const text = item?.content?.parts?.map((part) => part.text ?? '').join('\n') ?? '';
    if (match[2] === 'batchEmbedContents' && item?.model !== `models/${model}`) {
      res.json(400, errorBody(400, `* BatchEmbedContentsRequest.model: Model ${item?.model ?? ''} differs from the model specified in the request (models/${model}).`));
      return true;
    }
    if (text === '') {
      res.json(400, errorBody(400, '* EmbedContentRequest.content: contents must not be empty'));
      return true;
    }
    values.push(vectorSlot(text, item?.outputDimensionality ?? DEFAULT_DIMENSIONS));
  }
  return res.jsonWithVectors(200, match[2] === 'embedContent' ? { embedding: { values: values[0] } } : { embeddings: values.map((v) => ({ values: v })) }).then(() => true);
}
