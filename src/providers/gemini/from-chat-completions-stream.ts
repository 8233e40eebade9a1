import { GatewayError } from '../../errors.js';
import type { SseEvent } from '../../contracts/sse-event.js';
import type { OutEvent } from '../../contracts/sse-event.js';
import type { GeminiCandidate, GeminiUsageMetadata } from '../../protocols/gemini-generate/types.js';
import type { OpenAIChatChunk, OpenAIChatDelta, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import type { StreamTranslator, TranslateContext } from '../../contracts/translator.js';
import { chatCompletionId, mapFinishReason, toChatUsage, toToolCall } from './chat-response-mapping.js';
import { parseGeminiChunk, usageFromGemini } from './wire.js';

interface ChoiceState {
  /** Tool calls sent so far for this choice; the next one's `index` in the delta. */
  toolCalls: number;
  /** The candidate's finishReason arrived and its finish chunk was sent. */
  isFinished: boolean;
}

interface StreamState {
  /** chatcmpl- plus the first chunk's responseId (our request id without one); on every chunk. */
  id: string | undefined;
  /** The latest usageMetadata: Gemini sends running totals, so the last one wins, never summed. */
  usage: GeminiUsageMetadata | undefined;
  /** Per candidate index; a choice starts (role chunk) the first time its candidate appears. */
  choices: Map<number, ChoiceState>;
  /** The prompt was blocked (promptFeedback.blockReason): a finished stream without candidates. */
  isBlocked: boolean;
}

/**
 * Gemini `alt=sse` chunks (gemini.md "Streaming": each a GenerateContentResponse holding only the
 * new parts) → chat.completion.chunk events: a role chunk per choice, text and thought deltas,
 * whole function calls as one tool_calls delta each, a finish chunk per finishReason. Gemini
 * sends no end sentinel, so the stream counts as complete only when every candidate finished (or
 * the prompt was blocked); otherwise onEnd fails and the client gets an error event, not [DONE].
 */
export function createChatCompletionsStreamTranslator(ctx: TranslateContext): StreamTranslator {
  const state: StreamState = { id: undefined, usage: undefined, choices: new Map(), isBlocked: false };

  const chunk = (index: number, delta: OpenAIChatDelta, finishReason: OpenAIFinishReason | null = null): OutEvent => {
    const data: OpenAIChatChunk = {
      id: state.id ?? chatCompletionId(undefined, ctx.requestId),
      object: 'chat.completion.chunk',
      created: ctx.now,
      model: ctx.model,
      choices: [{ index, delta, finish_reason: finishReason }],
    };
    if (ctx.includeUsage) data.usage = null;
    return { data };
  };

  function choiceFor(index: number, out: OutEvent[]): ChoiceState {
    let choice = state.choices.get(index);
    if (!choice) {
      choice = { toolCalls: 0, isFinished: false };
      state.choices.set(index, choice);
      out.push(chunk(index, { role: 'assistant', content: '' }));
    }
    return choice;
  }

  function onCandidate(candidate: GeminiCandidate, position: number, out: OutEvent[]): void {
    const index = candidate.index ?? position;
    const choice = choiceFor(index, out);
    if (choice.isFinished) return;
    for (const part of candidate.content?.parts ?? []) {
      if (part.functionCall) {
        const call = toToolCall(part.functionCall, ctx.requestId, index, choice.toolCalls, part.thoughtSignature);
        out.push(chunk(index, { tool_calls: [{ index: choice.toolCalls++, ...call }] }));
      } else if (typeof part.text === 'string' && part.text !== '') {
        // An empty text part carries only a thoughtSignature (gemini.md "Thoughts") and is skipped.
        out.push(chunk(index, part.thought === true ? { reasoning_content: part.text } : { content: part.text }));
      }
    }
    if (candidate.finishReason !== undefined) {
      choice.isFinished = true;
      out.push(chunk(index, {}, mapFinishReason(candidate.finishReason, choice.toolCalls > 0)));
    }
  }

  return {
    onEvent(event: SseEvent): OutEvent[] {
      const response = parseGeminiChunk(event.data);
      state.id ??= chatCompletionId(response.responseId, ctx.requestId);
      if (response.usageMetadata) state.usage = response.usageMetadata;
      const out: OutEvent[] = [];
      const candidates = response.candidates ?? [];
      candidates.forEach((candidate, position) => onCandidate(candidate, position, out));
      // A blocked prompt gets no candidates, only promptFeedback on the first chunk (gemini.md "Response").
      if (candidates.length === 0 && response.promptFeedback?.blockReason && state.choices.size === 0) {
        state.isBlocked = true;
        out.push(chunk(0, { role: 'assistant', content: '' }), chunk(0, {}, 'content_filter'));
      }
      return out;
    },

    onEnd(): OutEvent[] {
      const choices = [...state.choices.values()];
      const isComplete = state.isBlocked || (choices.length > 0 && choices.every((c) => c.isFinished));
      if (!isComplete) throw new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended before it was complete');
      const out: OutEvent[] = [];
      if (ctx.includeUsage && state.usage) {
        const id = state.id ?? chatCompletionId(undefined, ctx.requestId);
        out.push({ data: { id, object: 'chat.completion.chunk', created: ctx.now, model: ctx.model, choices: [], usage: toChatUsage(state.usage) } });
      }
      out.push({ data: '[DONE]' });
      return out;
    },

    usage: () => (state.usage ? usageFromGemini(state.usage, 0) : undefined),
  };
}
