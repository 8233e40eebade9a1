import { vectorSlot } from '../../simulator/vector-pool.js';
import type { SimErrorBody, SimResponse } from '../../simulator/server.js';
import { countTokensInTurns } from '../../simulator/text.js';

/** Vertex's `:predict` limits (clouds.md §3): 250 instances, gemini-embedding-001 one. */
const MAX_INSTANCES = 250;
const DEFAULT_DIMENSIONS: Readonly<Record<string, number>> = { 'gemini-embedding-001': 3072 };

/**
 * The text-embedding `:predict` of Google's publisher models: one prediction per `{content}`
 * instance, `outputDimensionality` honoured, `statistics.token_count` per text, the simulator's
 * hashed bag-of-words vectors (768 long unless the model's own size is known).
 */
export async function answerVertexPredict(res: SimResponse, model: string, body: unknown, errorBody: SimErrorBody): Promise<void> {
  const request = (body ?? {}) as { instances?: unknown; parameters?: { outputDimensionality?: unknown } };
  const instances = request.instances;
  const limit = model === 'gemini-embedding-001' ? 1 : MAX_INSTANCES;
  if (!Array.isArray(instances) || instances.length === 0 || instances.length > limit) {
    res.json(400, errorBody(400, `instances must hold 1 to ${limit} items for ${model}`));
    return;
  }
  const texts = instances.map((instance) => (instance as { content?: unknown } | null)?.content);
  if (!texts.every((text): text is string => typeof text === 'string' && text !== '')) {
    res.json(400, errorBody(400, 'Each instance needs a non-empty content'));
    return;
  }
  const asked = request.parameters?.outputDimensionality;
  const dimensions = typeof asked === 'number' ? asked : (DEFAULT_DIMENSIONS[model] ?? 768);
  const counts = await countTokensInTurns(texts);
  const predictions = texts.map((text, index) => ({ embeddings: { values: vectorSlot(text, dimensions), statistics: { token_count: counts[index]!, truncated: false } } }));
  await res.jsonWithVectors(200, { predictions, metadata: { billableCharacterCount: texts.reduce((sum, text) => sum + text.length, 0) } });
}
