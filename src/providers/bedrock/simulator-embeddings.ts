import type { SimResponse } from '../../simulator/server.js';
import { vectorSlot } from '../../simulator/vector-pool.js';
import { countTokens, countTokensInTurns, sumOf } from '../../simulator/text.js';
import { isCohereEmbedModel } from './from-embeddings.js';

/** A refusal as Bedrock sends it: `{message}`, the exception's name in `x-amzn-errortype`. */
export type SimFail = (res: SimResponse, status: number, name: string, message: string) => void;

/** Whether InvokeModel on this id answers embeddings (Titan's and Cohere's embed models). */
export const isEmbedModel = (modelId: string): boolean => isCohereEmbedModel(modelId) || /(^|[./])amazon\.titan-embed/.test(modelId);

/**
 * InvokeModel on an embed model, with the body each model takes (clouds.md §2 "Embeddings"):
 * Titan one `inputText` (v2: `dimensions` 256/512/1024, `embeddingTypes`), Cohere up to 96
 * `texts` with an `input_type`; the simulator's hashed bag-of-words vectors.
 */
export async function answerEmbeddings(res: SimResponse, modelId: string, body: Record<string, unknown> | undefined, fail: SimFail): Promise<void> {
  if (isCohereEmbedModel(modelId)) return answerCohere(res, body, fail);
  const text = body?.inputText;
  if (typeof text !== 'string' || text === '' || 'texts' in (body ?? {})) return fail(res, 400, 'ValidationException', 'Malformed input request: inputText is required.');
  const dimensions = body!.dimensions ?? 1024;
  if (typeof dimensions !== 'number' || ![256, 512, 1024].includes(dimensions)) return fail(res, 400, 'ValidationException', 'Malformed input request: dimensions must be 256, 512 or 1024.');
  const embedding = vectorSlot(text, dimensions);
  await res.jsonWithVectors(200, { embedding, embeddingsByType: { float: embedding }, inputTextTokenCount: countTokens(text) }, { 'x-amzn-bedrock-input-token-count': String(countTokens(text)) });
}

async function answerCohere(res: SimResponse, body: Record<string, unknown> | undefined, fail: SimFail): Promise<void> {
  const texts = body?.texts;
  if (!Array.isArray(texts) || texts.length === 0 || texts.length > 96 || !texts.every((t): t is string => typeof t === 'string')) {
    return fail(res, 400, 'ValidationException', 'Malformed input request: texts must hold 1 to 96 strings.');
  }
  if (typeof body!.input_type !== 'string') return fail(res, 400, 'ValidationException', 'Malformed input request: input_type is required.');
  const dimensions = typeof body!.output_dimension === 'number' ? body!.output_dimension : 1024;
  const vectors = texts.map((text) => vectorSlot(text, dimensions));
  const byType = Array.isArray(body!.embedding_types);
  const tokens = sumOf(await countTokensInTurns(texts));
  await res.jsonWithVectors(200, { id: 'emb-sim', texts, embeddings: byType ? { float: vectors } : vectors, response_type: byType ? 'embeddings_by_type' : 'embeddings_floats' }, { 'x-amzn-bedrock-input-token-count': String(tokens) });
}
