import type { GatewayError } from '../../errors.js';
import type { SseEvent } from '../../contracts/sse-event.js';
import { eventObject } from '../../sse/write.js';
import { type OutEvent } from '../../contracts/sse-event.js';
import type { OpenAIChatChunk, OpenAIChatCompletion, OpenAIChatRequest } from '../../protocols/openai-chat/types.js';
import type { StreamTranslator, TranslateContext, TranslatorPair } from '../../contracts/translator.js';

/** Turns the chat chunks of one stream (as the vendor's chat pair hands them to a chat client) into a family's events. */
export interface ChunkTranslator {
  onChunk(chunk: OpenAIChatChunk): OutEvent[];
  /** The chat stream is complete (its usage chunk and `[DONE]` came): closing events. */
  onEnd(): OutEvent[];
  /** Closing events for a stream that fails after its first byte, when they depend on the stream so far. */
  onError?(error: GatewayError): OutEvent[];
}

/**
 * One endpoint family's protocol expressed through chat completions, the gateway's hub format:
 * what it takes to serve that family on any channel whose vendor has a chat-completions pair.
 */
export interface ViaChatHub<Req, Res> {
  /** The client's request as a chat request; what chat cannot carry is a clear 400, never dropped silently. */
  toChatRequest(req: Req, ctx: TranslateContext): OpenAIChatRequest;
  fromChatCompletion(completion: OpenAIChatCompletion, ctx: TranslateContext): Res;
  createChunkTranslator(ctx: TranslateContext): ChunkTranslator;
}

/**
 * A family served through a vendor's chat pair: the request goes family → chat → vendor, the answer
 * vendor → chat → family, and a stream's vendor events become chat chunks and then the family's
 * events. The vendor's chat pair keeps doing what it does for chat clients (its quirks, usage and
 * errors), so every chat-capable vendor serves the family without a translator of its own.
 */
export function viaChatHub<Req, Res>(family: ViaChatHub<Req, Res>, chat: TranslatorPair<OpenAIChatRequest, OpenAIChatCompletion>): TranslatorPair<Req, Res> {
  return {
    // A vendor whose streams are not SSE decodes them the same way whichever family asked.
    ...(chat.createStreamDecoder ? { createStreamDecoder: chat.createStreamDecoder.bind(chat) } : {}),
    toUpstream: (req, ctx) => chat.toUpstream(family.toChatRequest(req, ctx), ctx),

    fromUpstream(res, ctx) {
      const { body, usage } = chat.fromUpstream(res, ctx);
      return { body: family.fromChatCompletion(body, ctx), usage };
    },

    createStreamTranslator(ctx): StreamTranslator {
      // The usage chunk is what closes the family's stream with its token counts: always asked for.
      const inner = chat.createStreamTranslator({ ...ctx, includeUsage: true });
      const outer = family.createChunkTranslator(ctx);
      const relay = (events: OutEvent[]): OutEvent[] => {
        const out: OutEvent[] = [];
        for (const event of events) {
          const chunk = event.data === '[DONE]' ? undefined : (eventObject(event) as OpenAIChatChunk | undefined);
          if (chunk) out.push(...outer.onChunk(chunk));
        }
        return out;
      };
      const translator: StreamTranslator = {
        onEvent: (event: SseEvent) => relay(inner.onEvent(event)),
        onEnd: () => [...relay(inner.onEnd()), ...outer.onEnd()],
        usage: () => inner.usage(),
      };
      if (outer.onError) translator.onError = outer.onError.bind(outer);
      return translator;
    },

    fromUpstreamError: (status, body) => chat.fromUpstreamError(status, body),
  };
}
