/** Finish reasons a client can be given as they are. */
const PLAIN_FINISH_REASONS = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

const MODEL_KEY = '"model":"';
const FINISH_KEY = '"finish_reason":"';
const USAGE_KEY = '"usage":';
const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/** The keys the stream fast path looks at, found in one regex pass (one scan beats five indexOf). */
const CHUNK_KEYS = /"(?:model|choices|finish_reason|usage|error)":/g;
/** Told apart by the key's last letter, three characters before the end of the match. */
const [L_MODEL, S_CHOICES, N_FINISH, E_USAGE] = ['l', 's', 'n', 'e'].map((c) => c.charCodeAt(0)) as [number, number, number, number];

/**
 * The fast path for same-protocol streams (DESIGN.md): most chunks need only their model renamed
 * (and `"usage":null` dropped when the client did not ask for usage), which is done on the JSON
 * text without parsing it. Returns undefined when the chunk needs the full treatment: it carries
 * usage or an error, has no choices, an unusual finish reason, or a shape the scan cannot vouch
 * for (a key seen twice, a model with escapes). Quotes inside string values are escaped in JSON,
 * so these keys cannot match inside text. This runs once per streamed token: the keys are found
 * in one pass and the result is built with one concatenation.
 */
export function rewriteChunkText(data: string, publicModel: string, keepNullUsage: boolean): string | undefined {
  let modelAt = -1;
  let choicesAt = -1;
  let usageAt = -1;
  CHUNK_KEYS.lastIndex = 0;
  while (CHUNK_KEYS.test(data)) {
    const at = CHUNK_KEYS.lastIndex;
    const last = data.charCodeAt(at - 3);
    if (last === N_FINISH) {
      if (!plainFinishReason(data, at)) return undefined;
    } else if (last === L_MODEL && modelAt < 0) modelAt = at;
    else if (last === S_CHOICES && choicesAt < 0) choicesAt = at;
    else if (last === E_USAGE && usageAt < 0) usageAt = at;
    else return undefined; // "error", or a key seen twice
  }
  if (choicesAt < 0 || !data.startsWith('[{', choicesAt)) return undefined;
  const model = modelAt < 0 ? undefined : plainStringAt(data, modelAt);
  if (!model) return undefined;
  const head = data.slice(0, model.start) + publicModel;
  if (usageAt < 0) {
    if (!keepNullUsage) return head + data.slice(model.end);
    // OpenAI puts "usage":null on every chunk once usage is asked for; vendors that don't get it added.
    return data.endsWith('}') ? `${head}${data.slice(model.end, -1)},"usage":null}` : undefined;
  }
  // Only `"usage":null` after the model is handled here; usage figures take the full path.
  if (usageAt < model.end || !data.startsWith('null', usageAt)) return undefined;
  if (keepNullUsage) return head + data.slice(model.end);
  const keyAt = usageAt - USAGE_KEY.length;
  const nullEnd = usageAt + 4;
  if (data[keyAt - 1] === ',') return head + data.slice(model.end, keyAt - 1) + data.slice(nullEnd);
  if (data[nullEnd] === ',') return head + data.slice(model.end, keyAt) + data.slice(nullEnd + 1);
  return undefined;
}

/** A finish reason (its value starts at `at`) that goes to the client as it is: null or a plain one. */
function plainFinishReason(data: string, at: number): boolean {
  if (data.startsWith('null', at)) return true;
  const value = plainStringAt(data, at);
  return value !== undefined && PLAIN_FINISH_REASONS.has(data.slice(value.start, value.end));
}

/** The bounds of a string value starting at `at` (its opening quote), when it has no escapes. */
function plainStringAt(text: string, at: number): { start: number; end: number } | undefined {
  if (text.charCodeAt(at) !== QUOTE) return undefined;
  const start = at + 1;
  const end = text.indexOf('"', start);
  if (end < 0) return undefined;
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === BACKSLASH) return undefined;
  return { start, end };
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
  const model = modelAt < 0 ? undefined : plainStringAt(text, modelAt + MODEL_KEY.length - 1);
  if (!model) return undefined;
  const usage = usageObject(text);
  if (usage === undefined) return undefined;
  return { text: text.slice(0, model.start) + publicModel + text.slice(model.end), usage };
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
