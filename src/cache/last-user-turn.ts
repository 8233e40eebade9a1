/** The last user turn's text, and the request without that turn: what a semantic match must equal exactly. */
export interface LastUserTurn {
  text: string;
  context: unknown;
}

type Item = Record<string, unknown>;

/**
 * Splits a request whose `listField` ends in the user's turn (semantic cache, issue 32). Undefined
 * when the conversation ends otherwise (a tool result) or the turn holds more than text (an
 * image): such requests are matched exactly only.
 */
export function splitAtLastUserTurn(body: unknown, listField: string, isUser: (item: Item) => boolean, contentField: string, textPart: (part: Item) => string | undefined): LastUserTurn | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const list = (body as Item)[listField];
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const last = list[list.length - 1] as Item | null;
  if (!last || typeof last !== 'object' || !isUser(last)) return undefined;
  const text = textOfContent(last[contentField], textPart);
  if (!text?.trim()) return undefined;
  return { text, context: { ...(body as Item), [listField]: list.slice(0, -1) } };
}

/** A string, or parts that are all text. */
function textOfContent(content: unknown, textPart: (part: Item) => string | undefined): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const part of content as Item[]) {
    const text = part && typeof part === 'object' ? textPart(part) : undefined;
    if (text === undefined) return undefined;
    texts.push(text);
  }
  return texts.join('\n');
}

/** A part `{ type: <type>, text }` and nothing else of substance. */
export const typedTextPart =
  (type: string) =>
  (part: Item): string | undefined =>
    part.type === type && typeof part.text === 'string' ? part.text : undefined;
