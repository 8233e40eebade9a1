import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import { GatewayError } from '../../errors.js';
import { requestActingAs } from '../../plugins/acting-key.js';
import { compileValidator } from '../../validation/compile.js';
import { validated } from '../management/route-validation.js';
import { sessionOfRequest } from '../management/session-auth.js';
import type { ConsoleRouteTools } from './route-tools.js';

const PlaygroundChatBody = Type.Object(
  {
    key_id: Type.String({ minLength: 1, maxLength: 64, description: 'One of your keys (an operator: any key); its limits, budget and usage apply' }),
    model: Type.String({ minLength: 1, maxLength: 200 }),
    messages: Type.Array(Type.Object({ role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]), content: Type.String({ maxLength: 100_000 }) }), { minItems: 1, maxItems: 100 }),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);
type PlaygroundChatBody = Static<typeof PlaygroundChatBody>;
const validatePlaygroundChat = compileValidator(PlaygroundChatBody);

/** Headers of the gateway's answer the console passes on (framing is the outer reply's). */
const PASSED_ON = ['content-type', 'cache-control', 'x-request-id'];

/**
 * The console's playground (issue 35): a streamed chat through the gateway's own
 * /v1/chat/completions as one of the signed-in person's keys, chosen by id. The session is the
 * credential: no secret is pasted, sent or shown. The request runs in-process (`app.inject`)
 * marked with the key (plugins/acting-key.ts), so the key's models, limits, budget and usage
 * apply exactly as for a client, and the request log shows it under the key.
 */
export async function consolePlaygroundRoutes(app: FastifyInstance, { opts }: ConsoleRouteTools): Promise<void> {
  app.post(
    '/console/api/playground/chat/completions',
    {
      ...opts('A streamed chat completion as one of your keys (the playground); the answer is the /v1/chat/completions event stream', {
        body: PlaygroundChatBody,
        produces: ['text/event-stream'],
      }),
      validatorCompiler: validated(validatePlaygroundChat),
    },
    async (request, reply) => {
      const { user } = sessionOfRequest(request);
      const { key_id: keyId, ...chat } = request.body as PlaygroundChatBody;
      const key = await app.gateway.keys.get(keyId);
      // Someone else's key reads as no key at all: ids of other people's keys are not confirmed.
      if (!key || (user.role !== 'operator' && key.owner !== user.id)) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `You have no key ${keyId}`);
      const abort = new AbortController();
      request.raw.once('close', () => abort.abort());
      const answer = await app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'user-agent': 'gateway-console-playground' },
        payload: JSON.stringify({ ...chat, stream: true, stream_options: { include_usage: true } }),
        Request: requestActingAs(key.id),
        payloadAsStream: true,
        signal: abort.signal,
      });
      reply.code(answer.statusCode);
      for (const name of PASSED_ON) {
        const value = answer.headers[name];
        if (value !== undefined) reply.header(name, value);
      }
      return reply.send(answer.stream());
    },
  );
}
