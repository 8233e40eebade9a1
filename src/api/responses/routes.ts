import type { FastifyInstance } from 'fastify';
import { generalErrors } from '../general/errors.js';
import { responsesFacts } from './facts.js';
import type { OpenAIResponsesRequest, ResponsesTranslatorPair } from '../../protocols/openai-responses/types.js';
import { dispatchJson, dispatchStream } from '../../gateway/dispatch.js';
import { answerJsonCached } from '../../gateway/response-cache-dispatch.js';
import { responsesCacheCodec } from './cache-codec.js';
import { admit } from '../../plugins/rate-limit.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { ResponsesRequest, validateResponsesRequest } from './schemas.js';
import { renderResponsesStreamError, responsesEventText } from './stream-error.js';
import { answerRememberer, channelsForFollowUp } from './previous-response.js';

declare module '../../contracts/translator.js' {
  interface FamilyPairs {
    responses: ResponsesTranslatorPair;
  }
}

/** POST /v1/responses (spec §3). */
export async function responsesRoutes(app: FastifyInstance): Promise<void> {
  app.post(
    '/v1/responses',
    {
      config: { family: 'responses', errors: generalErrors, operation: 'chat' },
      schema: {
        summary: 'Create a model response',
        description:
          'Beta-family models. `stream: true` streams Responses events (`event:` equals the payload `type`, increasing `sequence_number`), ending with `response.completed`, `response.incomplete` or `response.failed`; no `[DONE]`.',
        tags: ['responses'],
        security: [{ bearer: [] }],
        body: ResponsesRequest,
      },
      validatorCompiler: () => toFastifyValidator((body) => validateResponsesRequest(body, app.gateway.catalog)),
    },
    async (request, reply) => {
      const body = request.body as OpenAIResponsesRequest;
      await admit(request, reply, body.model, { facts: responsesFacts(body) });
      const gateway = app.gateway;
      const previous = body.previous_response_id;
      const channels = typeof previous === 'string' && previous ? await channelsForFollowUp(gateway, previous, body.model) : undefined;
      const remember = answerRememberer(gateway, body.store === false);
      const options = { family: 'responses' as const, model: body.model, body, request, reply, channels };
      if (body.stream) {
        await dispatchStream({ ...options, onAnswerId: remember, renderError: renderResponsesStreamError, deliveredText: responsesEventText, cache: { codec: responsesCacheCodec } });
        return reply;
      }
      return answerJsonCached({ family: 'responses', model: body.model, request, reply, codec: responsesCacheCodec }, async () => {
        const answered = await dispatchJson(options);
        if (remember && typeof answered.body.id === 'string') {
          await remember(answered.channel, answered.body.id).catch((error: unknown) => request.log.error({ err: error, channel: answered.channel.name }, 'could not remember the channel of a stored response'));
        }
        return answered.body;
      });
    },
  );
}
