import type { ResponseCacheCodec } from '../../contracts/response-cache.js';
import { splitAtLastUserTurn } from '../../cache/last-user-turn.js';
import type { OutEvent, SseEvent } from '../../contracts/sse-event.js';
import type { GeminiCandidate, GeminiGenerateContentResponse, GeminiPart } from '../../protocols/gemini-generate/types.js';

/**
 * Gemini-native answers in the response cache (issue 32): an `alt=sse` stream of
 * GenerateContentResponse chunks adds up to one response (text and thought parts joined per
 * candidate, function calls and images kept, the last finishReason and usageMetadata); it is
 * stored only once a candidate has finished. A response replays as a thought chunk, an answer
 * chunk and a final chunk with the finish reason and usage.
 */
export const generateContentCacheCodec: Required<ResponseCacheCodec> = {
  fromStream: responseOfStream,
  toStream: chunksOf,
  hasClientToolCalls: (body) => (body as GeminiGenerateContentResponse).candidates?.some((c) => c.content?.parts?.some((p) => p.functionCall !== undefined)) ?? false,
  // A part with only `text` (a thought flag or data beside it is not a plain question).
  splitLastUserTurn: (body) =>
    splitAtLastUserTurn(body, 'contents', (c) => c.role === undefined || c.role === 'user', 'parts', (p) => (typeof p.text === 'string' && Object.keys(p).length === 1 ? p.text : undefined)),
};

function responseOfStream(events: readonly SseEvent[]): GeminiGenerateContentResponse | undefined {
  let response: GeminiGenerateContentResponse | undefined;
  const candidates = new Map<number, GeminiCandidate & { content: { parts: GeminiPart[] } }>();
  for (const { data } of events) {
    const chunk = JSON.parse(data) as GeminiGenerateContentResponse & { error?: unknown };
    if (chunk.error !== undefined) return undefined;
    const { candidates: parts, ...rest } = chunk;
    response = { ...response, ...rest };
    for (const candidate of parts ?? []) {
      const index = candidate.index ?? 0;
      let into = candidates.get(index);
      if (!into) candidates.set(index, (into = { ...candidate, content: { ...candidate.content, parts: [] } }));
      else Object.assign(into, { ...candidate, content: into.content });
      for (const part of candidate.content?.parts ?? []) appendPart(into.content.parts, part);
    }
  }
  const all = [...candidates.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
  if (!response || all.length === 0 || !all.every((c) => c.finishReason)) return undefined;
  return { candidates: all, ...response };
}

/** Text follows text of the same kind (thought or answer) into one part, as a non-stream answer has it. */
function appendPart(parts: GeminiPart[], part: GeminiPart): void {
  const last = parts[parts.length - 1];
  const isPlainText = (p: GeminiPart) => typeof p.text === 'string' && Object.keys(p).every((k) => k === 'text' || k === 'thought');
  if (last && isPlainText(last) && isPlainText(part) && (last.thought === true) === (part.thought === true)) last.text += part.text!;
  else parts.push({ ...part });
}

function chunksOf(body: unknown): OutEvent[] {
  const { candidates = [], usageMetadata, ...rest } = body as GeminiGenerateContentResponse;
  const chunk = (pick: (p: GeminiPart) => boolean, isLast: boolean): OutEvent | undefined => {
    const picked = candidates.map(({ finishReason, ...c }) => ({ ...c, content: { ...c.content, parts: (c.content?.parts ?? []).filter(pick) }, ...(isLast && finishReason ? { finishReason } : {}) }));
    if (!isLast && picked.every((c) => c.content.parts.length === 0)) return undefined;
    return { data: { candidates: picked, ...(isLast && usageMetadata ? { usageMetadata } : {}), ...rest } };
  };
  const isThought = (p: GeminiPart) => p.thought === true;
  return [chunk(isThought, false), chunk((p) => !isThought(p), true)].filter((e): e is OutEvent => e !== undefined);
}
