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

/**
 * The same fast path for a whole chat completion: the model renamed in the text and the usage
 * read from its `usage` object alone. Undefined when the body needs the parsing path (no
 * `object: chat.completion`, an unusual finish reason, an error, or a shape the scan cannot vouch for).
 */
export function rewriteCompletionText(text: string, publicModel: string): { text: string; usage: unknown } | undefined {
  if (!text.includes('"object":"chat.completion"') || !text.includes('"choices":[') || text.includes('"error"')) return undefined;
  for (let at = text.indexOf(FINISH_KEY); at >= 0; at = text.indexOf(FINISH_KEY, at + 1)) {
    const start = at + FINISH_KEY.length;
    if (!PLAIN_FINISH_REASONS.has(text.slice(start, text.indexOf('"', start)))) return undefined;
  }
  const modelAt = text.indexOf(MODEL_KEY);
  if (modelAt < 0) return undefined;
  const valueStart = modelAt + MODEL_KEY.length;
  const valueEnd = text.indexOf('"', valueStart);
  if (valueEnd < 0 || text.slice(valueStart, valueEnd).includes('\\')) return undefined;
  const usage = usageObject(text);
  if (usage === undefined) return undefined;
  return { text: text.slice(0, valueStart) + publicModel + text.slice(valueEnd), usage };
}

/**
 * The `"usage":{…}` object of a completion, parsed on its own. Its keys are identifiers and its
 * values numbers or nested objects, so counting braces finds its end; JSON.parse checks the cut.
 */
function usageObject(text: string): unknown {
  const at = text.lastIndexOf('"usage":{');
  if (at < 0) return undefined;
  const start = at + '"usage":'.length;
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      try {
        return JSON.parse(text.slice(start, i + 1)) as unknown;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
