import type { TranslateContext } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import { firstVectorAt } from '../../protocols/openai-embeddings/vector-encoding.js';

/**
 * The pass-through of an OpenAI-compatible embeddings answer as text: 2,048 vectors are megabytes
 * of JSON, and parsing them only to write them out again would cost the gateway far more than the
 * upstream's own work. Taken only when the answer is already what the client asked for: its
 * vectors in the client's encoding (checked on the first), one `index` per input, a `model` to
 * rename and a flat `usage`. Base64 text cannot hold a quote, float arrays hold no strings, so the
 * only `"model"` and `"usage"` keys are the top-level ones. Anything else: undefined, and the
 * answer goes through the parsing translator.
 */
export function embeddingsTextFastPath(text: string, ctx: TranslateContext): { text: string; usage: Usage } | undefined {
  const wanted = ctx.vectors;
  if (!wanted) return undefined;
  const first = firstVectorAt(text);
  if (first < 0 || text[first] !== (wanted.encoding === 'base64' ? '"' : '[')) return undefined;
  if (countOf(text, '"index"') !== wanted.inputs) return undefined;
  const model = text.lastIndexOf('"model"');
  const usageAt = text.lastIndexOf('"usage"');
  if (model < 0 || usageAt < 0) return undefined;
  const valueStart = text.indexOf('"', text.indexOf(':', model + 7) + 1);
  const valueEnd = text.indexOf('"', valueStart + 1);
  if (valueStart < 0 || valueEnd < 0 || text.slice(model + 7, valueStart).trim() !== ':') return undefined;
  const usage = flatObjectAt(text, usageAt + 7);
  if (!usage) return undefined;
  const promptTokens = typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : typeof usage.total_tokens === 'number' ? usage.total_tokens : undefined;
  if (promptTokens === undefined) return undefined;
  return {
    text: text.slice(0, valueStart) + JSON.stringify(ctx.model) + text.slice(valueEnd + 1),
    usage: { promptTokens, completionTokens: 0, reasoningTokens: 0, totalTokens: promptTokens },
  };
}


function countOf(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** The `{…}` after `:` at `from`, when it has no nested object (OpenAI's usage); parsed on its own. */
function flatObjectAt(text: string, from: number): Record<string, unknown> | undefined {
  const open = text.indexOf('{', from);
  const close = text.indexOf('}', open);
  if (open < 0 || close < 0 || text.slice(from, open).trim() !== ':' || text.slice(open + 1, close).includes('{')) return undefined;
  try {
    return JSON.parse(text.slice(open, close + 1)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
