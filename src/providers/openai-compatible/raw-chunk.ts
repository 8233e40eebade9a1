/** Finish reasons a client can be given as they are. */
const PLAIN_FINISH_REASONS = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

const MODEL_KEY = '"model":"';
const FINISH_KEY = '"finish_reason":"';

/**
 * The fast path for same-protocol streams (DESIGN.md): most chunks need only their model renamed
 * (and `"usage":null` dropped when the client did not ask for usage), which is done on the JSON
 * text without parsing it. Returns undefined when the chunk needs the full treatment: it carries
 * usage or an error, has no choices, an unusual finish reason, or a shape the scan cannot vouch
 * for. Quotes inside string values are escaped in JSON, so these keys cannot match inside text.
 */
export function rewriteChunkText(data: string, publicModel: string, keepNullUsage: boolean): string | undefined {
  if (data.includes('"usage":{') || data.includes('"error"') || data.includes('"choices":[]')) return undefined;
  const finishAt = data.indexOf(FINISH_KEY);
  if (finishAt >= 0) {
    const start = finishAt + FINISH_KEY.length;
    if (!PLAIN_FINISH_REASONS.has(data.slice(start, data.indexOf('"', start)))) return undefined;
  }
  const modelAt = data.indexOf(MODEL_KEY);
  if (modelAt < 0) return undefined;
  const valueStart = modelAt + MODEL_KEY.length;
  const valueEnd = data.indexOf('"', valueStart);
  if (valueEnd < 0 || data.slice(valueStart, valueEnd).includes('\\')) return undefined;
  let text = data.slice(0, valueStart) + publicModel + data.slice(valueEnd);
  const hasNullUsage = text.includes('"usage":null');
  if (keepNullUsage) {
    if (hasNullUsage) return text;
    // OpenAI puts "usage":null on every chunk once usage is asked for; vendors that don't get it added.
    if (text.includes('"usage"') || !text.endsWith('}')) return undefined;
    return `${text.slice(0, -1)},"usage":null}`;
  }
  if (hasNullUsage) text = text.replace(',"usage":null', '').replace('"usage":null,', '');
  return text.includes('"usage"') ? undefined : text;
}
