import type { OutEvent } from '../../contracts/sse-event.js';
import type { GeminiGenerateContentResponse, GeminiPart } from '../../protocols/gemini-generate/types.js';
import type { OpenAIChatChunk, OpenAIChatToolCall, OpenAIChatUsage, OpenAIFinishReason } from '../../protocols/openai-chat/types.js';
import type { TranslateContext } from '../../contracts/translator.js';
import type { ChunkTranslator } from './compose.js';
import { toolInput } from './anthropic-from-chat.js';
import { responseIdFor, toGeminiFinishReason, toUsageMetadata } from './gemini-from-chat.js';

/**
 * Chat chunks → a Gemini SSE stream (gemini.md "Streaming"): each chunk's text (and thoughts, when
 * the client asked for them) as a response with one candidate; tool calls, which Gemini sends
 * whole, gathered and sent as `functionCall` parts once complete; the last response carries the
 * finish reason and the usage.
 */
export function createGeminiFromChatStream(ctx: TranslateContext): ChunkTranslator {
  const state = {
    /** Tool calls assembled from their fragments, by chat index. */
    calls: new Map<number, OpenAIChatToolCall>(),
    finishReason: null as OpenAIFinishReason | null,
    usage: undefined as OpenAIChatUsage | null | undefined,
  };
  const response = (parts: GeminiPart[], extra: Partial<GeminiGenerateContentResponse['candidates'] & object>[number] = {}): OutEvent => ({
    data: { candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }], modelVersion: ctx.model, responseId: responseIdFor(ctx) } satisfies GeminiGenerateContentResponse,
  });

  return {
    onChunk(chunk: OpenAIChatChunk): OutEvent[] {
      if (chunk.usage) state.usage = chunk.usage;
      const parts: GeminiPart[] = [];
      for (const choice of chunk.choices ?? []) {
        if (choice.index !== 0) continue;
        const delta = choice.delta ?? {};
        if (delta.reasoning_content && !ctx.hidesReasoning) parts.push({ text: delta.reasoning_content, thought: true });
        if (delta.content) parts.push({ text: delta.content });
        for (const fragment of delta.tool_calls ?? []) {
          const call = state.calls.get(fragment.index) ?? { id: fragment.id ?? '', type: 'function', function: { name: '', arguments: '' } };
          if (fragment.id) call.id = fragment.id;
          if (fragment.function?.name) call.function.name = fragment.function.name;
          if (fragment.function?.arguments) call.function.arguments += fragment.function.arguments;
          state.calls.set(fragment.index, call);
        }
        if (choice.finish_reason) state.finishReason = choice.finish_reason;
      }
      return parts.length > 0 ? [response(parts)] : [];
    },
    onEnd(): OutEvent[] {
      const parts: GeminiPart[] = [...state.calls.values()].map((call) => ({
        functionCall: { id: call.id, name: call.function.name, args: toolInput(call.function.arguments) as Record<string, unknown> },
      }));
      const last = response(parts.length > 0 ? parts : [{ text: '' }], { finishReason: toGeminiFinishReason(state.finishReason) });
      (last.data as GeminiGenerateContentResponse).usageMetadata = toUsageMetadata(state.usage);
      return [last];
    },
  };
}
