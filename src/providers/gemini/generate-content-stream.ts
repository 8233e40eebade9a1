import { GatewayError } from '../../errors.js';
import type { OutEvent } from '../../contracts/sse-event.js';
import type { GeminiCandidate, GeminiGenerateContentResponse, GeminiUsageMetadata } from '../../protocols/gemini-generate/types.js';
import type { StreamTranslator, TranslateContext } from '../../contracts/translator.js';
import { outputImageParts, parseGeminiChunk, usageFromGemini } from './wire.js';

/**
 * Re-shapes a Gemini `alt=sse` stream into the gateway's image-stream order (spec "Events ›
 * Image stream"): content chunks as they come, then ONE final chunk with no `candidates` and the
 * top-level `usageMetadata`. Real Gemini puts running usage on every chunk and the final counts
 * on the last candidate chunk, and (unlike Vertex) sends no `createTime` or `trafficType`
 * (gemini.md "Response"), so the translator:
 *   - strips usageMetadata from candidate chunks and emits the last one seen in its own chunk;
 *   - fills `trafficType: "ON_DEMAND"` (what a pay-as-you-go Gemini API call is) when absent;
 *   - stamps every chunk with `modelVersion` = the public id, the upstream `responseId` (our
 *     request id when absent) and `createTime` (the admission time, RFC 3339, when absent);
 *   - holds each candidate chunk back by one event, so that a trailing chunk carrying only a
 *     finishReason (an empty part list or an empty text part) folds into the chunk before it
 *     instead of appearing as an extra chunk after the image.
 */
export function createGenerateContentStreamTranslator(ctx: TranslateContext): StreamTranslator {
  const state = {
    /** The candidate chunk not yet sent (see "holds back" above). */
    held: undefined as GeminiGenerateContentResponse | undefined,
    /** The latest usageMetadata: Gemini's are running totals, so the last one wins. */
    usage: undefined as GeminiUsageMetadata | undefined,
    /** responseId and createTime of the first chunk, reused on every chunk we send. */
    responseId: undefined as string | undefined,
    createTime: undefined as string | undefined,
    /** Output images seen, for usage accounting. */
    images: 0,
    /** A candidate finished or the prompt was blocked; without either the stream was cut. */
    isFinished: false,
  };

  const stamp = (chunk: GeminiGenerateContentResponse): GeminiGenerateContentResponse => ({
    ...chunk,
    modelVersion: ctx.model,
    responseId: state.responseId ?? ctx.requestId,
    createTime: state.createTime ?? new Date(ctx.now * 1000).toISOString(),
  });

  const flush = (): OutEvent[] => {
    const held = state.held;
    state.held = undefined;
    return held ? [{ data: stamp(held) }] : [];
  };

  return {
    onEvent(event): OutEvent[] {
      const { usageMetadata, ...chunk } = parseGeminiChunk(event.data);
      state.responseId ??= chunk.responseId;
      state.createTime ??= chunk.createTime;
      if (usageMetadata) state.usage = usageMetadata;
      const candidates = chunk.candidates ?? [];
      if (candidates.some((c) => c.finishReason !== undefined) || chunk.promptFeedback?.blockReason) state.isFinished = true;
      if (candidates.length === 0 && !chunk.promptFeedback) return [];
      state.images += outputImageParts(chunk).length;
      if (state.held && isFinishOnly(candidates) && foldInto(state.held, candidates)) return [];
      const out = flush();
      state.held = chunk;
      return out;
    },

    onEnd(): OutEvent[] {
      if (!state.isFinished) throw new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended before it was complete');
      const out = flush();
      if (state.usage) {
        out.push({ data: stamp({ usageMetadata: { ...state.usage, trafficType: state.usage.trafficType ?? 'ON_DEMAND' } }) });
      }
      return out;
    },

    usage: () => (state.usage ? usageFromGemini(state.usage, state.images) : undefined),
  };
}

/** A chunk whose candidates carry no content worth a chunk of its own: only finish data. */
function isFinishOnly(candidates: readonly GeminiCandidate[]): boolean {
  return (
    candidates.length > 0 &&
    candidates.every((c) => (c.content?.parts ?? []).every((part) => Object.keys(part).length === 1 && part.text === ''))
  );
}

/** Copies the candidates' finish fields onto the held chunk's matching candidates. */
function foldInto(held: GeminiGenerateContentResponse, candidates: readonly GeminiCandidate[]): boolean {
  const target = held.candidates ?? [];
  const matches = candidates.map((c, position) => target.find((t, i) => (t.index ?? i) === (c.index ?? position)));
  if (matches.some((m) => m === undefined)) return false;
  held.candidates = target.map((t, i) => {
    const at = candidates.findIndex((c, position) => (c.index ?? position) === (t.index ?? i));
    if (at < 0) return t;
    const { content: _content, ...finish } = candidates[at]!;
    return { ...t, ...finish };
  });
  return true;
}
