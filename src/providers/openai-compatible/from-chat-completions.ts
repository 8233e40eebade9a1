import { GatewayError } from '../../errors.js';
import { upstreamMessage, upstreamStatusError } from '../../providers/upstream-errors.js';
import type { OutEvent } from '../../contracts/sse-event.js';
import {
  usageFromOpenAI,
  type OpenAIChatChunk,
  type OpenAIChatCompletion,
  type OpenAIChatRequest,
  type OpenAIFinishReason,
} from '../../protocols/openai-chat/types.js';
import type { StreamTranslator, TranslateContext, TranslatorPair } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import type { UpstreamCall } from '../../contracts/upstream-call.js';
import type { OpenAICompatibleQuirks } from './quirks.js';
import { parseChatChunk } from './parse-chat-chunk.js';
import { rewriteChunkText, rewriteCompletionText } from './raw-chunk.js';

const KNOWN_FINISH_REASONS = new Set<string>(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

/**
 * Chat completions to an OpenAI-compatible upstream: the same protocol on both sides, so the body
 * passes through with the model renamed; the stream is observed for usage, and the usage chunk
 * the gateway always asks for is removed again when the client did not ask for it.
 */
export function chatCompletionsToOpenAICompatible(quirks: OpenAICompatibleQuirks): TranslatorPair<OpenAIChatRequest, OpenAIChatCompletion> {
  function mapFinishReason(reason: string | null | undefined): OpenAIFinishReason | null {
    if (reason === null || reason === undefined) return null;
    if (quirks.failureFinishReasons.includes(reason)) {
      throw new GatewayError('GW_UPSTREAM_ERROR', `The upstream provider failed to finish the generation (${reason})`);
    }
    if (KNOWN_FINISH_REASONS.has(reason)) return reason as OpenAIFinishReason;
    const mapped = quirks.extraFinishReasons[reason];
    if (mapped) return mapped;
    return 'stop';
  }

  return {
    toUpstream(req: OpenAIChatRequest, ctx: TranslateContext): UpstreamCall {
      const body: OpenAIChatRequest = { ...req, model: ctx.upstreamModel };
      if (req.stream && quirks.streamUsage === 'stream-options') {
        body.stream_options = { ...req.stream_options, include_usage: true };
      } else if (quirks.streamUsage === 'always') {
        delete body.stream_options;
      }
      return { method: 'POST', path: '/chat/completions', body };
    },

    fromUpstream(res: unknown, ctx: TranslateContext): { body: OpenAIChatCompletion; usage: Usage } {
      const completion = res as OpenAIChatCompletion;
      if (!completion || !Array.isArray(completion.choices)) {
        throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned a chat completion without choices');
      }
      const body: OpenAIChatCompletion = {
        ...completion,
        object: 'chat.completion',
        model: ctx.model,
        choices: completion.choices.map((choice) => ({ ...choice, finish_reason: mapFinishReason(choice.finish_reason) })),
      };
      return { body, usage: usageFromOpenAI(completion.usage) };
    },

    fromUpstreamText(text: string, ctx: TranslateContext): { text: string; usage: Usage } | undefined {
      const fast = rewriteCompletionText(text, JSON.stringify(ctx.model).slice(1, -1));
      return fast && { text: fast.text, usage: usageFromOpenAI(fast.usage as OpenAIChatCompletion['usage']) };
    },

    createStreamTranslator(ctx: TranslateContext): StreamTranslator {
      const publicModelText = JSON.stringify(ctx.model).slice(1, -1);
      const state = {
        /** The upstream's usage object (cumulative totals: the last one seen wins, never summed). */
        rawUsage: undefined as OpenAIChatChunk['usage'],
        /** id and created of the upstream chunks, reused for the usage chunk we emit. */
        id: '',
        created: ctx.now,
        /** The upstream sent `[DONE]`; without it the stream was cut. */
        isDone: false,
      };
      // Once the first chunk gave us id and created, plain chunks skip parsing altogether.
      const plainData = (data: string): string | undefined => (state.id ? rewriteChunkText(data, publicModelText, ctx.includeUsage) : undefined);
      return {
        onPlainData: plainData,
        onEvent(event): OutEvent[] {
          if (event.data === '[DONE]') {
            state.isDone = true;
            return [];
          }
          const raw = plainData(event.data);
          if (raw !== undefined) return [{ data: raw }];
          const chunk = parseChatChunk(event.data);
          state.id = chunk.id;
          state.created = chunk.created;
          if (chunk.usage) state.rawUsage = chunk.usage;
          // Usage leaves in one usage-only chunk at the end (OpenAI's include_usage shape),
          // whether the upstream sent it alone (OpenAI, Ark) or on its last choice chunk (Zhipu).
          if (chunk.choices.length === 0) return [];
          const out: OpenAIChatChunk = {
            ...chunk,
            model: ctx.model,
            choices: chunk.choices.map((c) => ({ ...c, finish_reason: mapFinishReason(c.finish_reason) })),
          };
          if (ctx.includeUsage) out.usage = null;
          else delete out.usage;
          return [{ data: out }];
        },
        onEnd(): OutEvent[] {
          if (!state.isDone) throw new GatewayError('GW_UPSTREAM_ERROR', 'The upstream stream ended before it was complete');
          const out: OutEvent[] = [];
          if (ctx.includeUsage && state.rawUsage) {
            out.push({ data: { id: state.id, object: 'chat.completion.chunk', created: state.created, model: ctx.model, choices: [], usage: state.rawUsage } });
          }
          out.push({ data: '[DONE]' });
          return out;
        },
        usage: () => (state.rawUsage ? usageFromOpenAI(state.rawUsage) : undefined),
      };
    },

    fromUpstreamError(status: number, body: unknown): GatewayError {
      return upstreamStatusError(status, upstreamMessage(body));
    },
  };
}
