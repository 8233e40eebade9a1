import { dimensionsOf, firstVectorAt } from '../../protocols/openai-embeddings/vector-encoding.js';

/**
 * The request log's copy of an embeddings answer: how many vectors of how many dimensions, never
 * the vectors (megabytes each, and as telling as the texts). Read from the first vector's text,
 * without parsing the rest.
 */
export function summariseEmbeddingsAnswer(text: string, count: number): string {
  return JSON.stringify({ summary: `${count} embeddings × ${firstDimensions(text) ?? '?'} dimensions` });
}

function firstDimensions(text: string): number | undefined {
  const at = firstVectorAt(text);
  if (at < 0) return undefined;
  if (text[at] === '"') return dimensionsOf(text.slice(at + 1, text.indexOf('"', at + 1)));
  if (text[at] !== '[') return undefined;
  const values = text.slice(at + 1, text.indexOf(']', at)).trim();
  return values === '' ? 0 : values.split(',').length;
}
