import type { FastifyInstance, FastifyRequest } from 'fastify';
import { anthropicErrors, messagesErrors } from './errors.js';
import { anthropicMessagesFacts } from './facts.js';
import { GatewayError } from '../../errors.js';
import { dispatchJsonReply, dispatchStream } from '../../gateway/dispatch.js';
import { answerJsonCached } from '../../gateway/response-cache-dispatch.js';
import { anthropicCacheCodec } from './anthropic-cache-codec.js';
import { isRouted } from '../../gateway/route-model.js';
import { findModel } from '../../catalog/models.js';
import { admit } from '../../plugins/rate-limit.js';
import { assertModelAllowed, familyRefusal } from '../../plugins/auth.js';
import type { AnthropicMessage, AnthropicMessagesRequest } from '../../protocols/anthropic-messages/types.js';
import type { ClientPassThrough, TranslatorPair } from '../../contracts/translator.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { AnthropicCountTokensSchema, AnthropicMessagesRequestSchema, validateAnthropicCountTokens, validateAnthropicMessagesRequest, type AnthropicCountTokensRequest } from './anthropic-schemas.js';
import { anthropicEventText, anthropicStreamError } from './anthropic-stream.js';
import { countAnthropicInputTokens } from './count-tokens.js';

declare module '../../contracts/translator.js' {
  interface FamilyPairs {
    /** Anthropic-native /v1/messages: Anthropic's Messages API on both sides of the hub. */
    'anthropic-messages': TranslatorPair<AnthropicMessagesRequest, AnthropicMessage>;
  }
}

/** The route constraint that tells the two modes of /v1/messages apart. */
const NATIVE = 'anthropicNative';

/** The client headers an Anthropic channel receives as sent (Claude Code's gateway guidance). */
const FORWARDED_HEADERS = ['anthropic-version', 'anthropic-beta'] as const;

/**
 * /v1/messages in Anthropic's own protocol, for requests that carry `anthropic-version` (every
 * Anthropic SDK and Claude Code send it; the spec's chat-shaped callers do not): content blocks,
 * named stream events and Anthropic's error envelope (docs/decisions.md "Two modes of
 * /v1/messages"). Any model a chat-capable channel serves is accepted; Anthropic channels get the
 * body as sent, others a translation through the chat hub. Plus /v1/messages/count_tokens.
 */
export async function anthropicMessagesRoutes(app: FastifyInstance): Promise<void> {
  app.addConstraintStrategy({
    name: NATIVE,
    storage() {
      const handlers = new Map<string, unknown>();
      return { get: (value: string) => handlers.get(value) ?? null, set: (value: string, handler: unknown) => void handlers.set(value, handler) };
    },
    // One header lookup per request: find-my-way asks every request once a route uses the constraint.
    deriveConstraint: (req: { headers: Record<string, unknown> }) => (req.headers['anthropic-version'] === undefined ? undefined : 'yes'),
    mustMatchWhenDerived: false,
  } as never);

  app.post(
    '/v1/messages',
    {
      constraints: { [NATIVE]: 'yes' },
      config: { family: 'messages', errors: messagesErrors, operation: 'chat', keepsBodyText: true },
      schema: { hide: true, body: AnthropicMessagesRequestSchema },
      validatorCompiler: () => toFastifyValidator(validateAnthropicMessagesRequest),
    },
    async (request, reply) => {
      const body = request.body as AnthropicMessagesRequest;
      assertServed(request, body.model);
      // The Anthropic SDKs surface this header as the request id of a call.
      reply.header('request-id', request.id);
      const admitting = admit(request, reply, body.model, { facts: anthropicMessagesFacts(body) });
      if (admitting) await admitting;
      const client = { passThrough: passThroughOf(request), hidesReasoning: !showsThinking(body) };
      const options = { family: 'anthropic-messages' as const, model: body.model, body, request, reply, client };
      // Beta features change the answer: the header is part of the cache key.
      const keyExtra = request.headers['anthropic-beta'] as string | undefined;
      if (body.stream) {
        await dispatchStream({ ...options, renderError: anthropicStreamError(request.id), deliveredText: anthropicEventText, cache: { codec: anthropicCacheCodec, keyExtra } });
        return reply;
      }
      return answerJsonCached({ family: 'anthropic-messages', model: body.model, request, reply, codec: anthropicCacheCodec, keyExtra }, () => dispatchJsonReply(options));
    },
  );

  app.post(
    '/v1/messages/count_tokens',
    {
      config: { errors: anthropicErrors },
      schema: {
        summary: 'Count the tokens of a message request (Anthropic)',
        description:
          "Anthropic's token counting: the Messages request without `max_tokens`; answers `{input_tokens}`, counted with the gateway's tokenizer whichever vendor serves the model (no upstream call, no usage recorded). Auth by `x-api-key` or `Authorization: Bearer`; errors in Anthropic's envelope.",
        tags: ['messages'],
        security: [{ bearer: [] }],
        body: AnthropicCountTokensSchema,
      },
      validatorCompiler: () => toFastifyValidator(validateAnthropicCountTokens),
    },
    async (request, reply) => {
      const body = request.body as AnthropicCountTokensRequest;
      const key = request.gw.key;
      const refusal = key && familyRefusal(key, 'messages');
      if (refusal) throw refusal;
      assertModelAllowed(key, body.model);
      assertServed(request, body.model);
      // Under the key's rpm like every other call (issue 34); nothing is billed, so no budget hold.
      const admitting = admit(request, reply, body.model, { checkBudget: false });
      if (admitting) await admitting;
      return { input_tokens: countAnthropicInputTokens(body) };
    },
  );
}

/** An id nothing serves is Anthropic's 404 (`not_found_error`); a catalog model with no channel up gets the router's own error. */
function assertServed(request: FastifyRequest, model: string): void {
  if (isRouted(request.server.gateway.channels, model) || findModel(model)) return;
  throw new GatewayError('GW_RESOURCE_NOT_FOUND', `model: ${model} is not served by this gateway`, { param: 'model' });
}

function passThroughOf(request: FastifyRequest): ClientPassThrough {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const beta = (request.query as Record<string, unknown> | undefined)?.beta;
  return { text: request.gw.bodyText, headers, ...(typeof beta === 'string' ? { query: { beta } } : {}) };
}

/** Anthropic returns thinking blocks only when thinking is on (`enabled` or `adaptive`). */
function showsThinking(body: AnthropicMessagesRequest): boolean {
  const type = (body.thinking as { type?: string } | undefined)?.type;
  return type === 'enabled' || type === 'adaptive';
}
