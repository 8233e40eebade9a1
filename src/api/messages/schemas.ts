import { Type, type Static } from 'typebox';
import { MESSAGES_MODELS } from '../../catalog/models.js';
import { modelKeyedValidator } from '../../validation/model-keyed.js';

/**
 * POST /v1/messages (spec §2): chat-shaped, string content only. The spec's defaults
 * (max_tokens 8192, temperature 1, penalties 0, stream false) are filled in by the validator
 * (Ajv useDefaults), so the upstream receives them. Fields not listed are accepted and passed on.
 */
const enumOf = (values: readonly string[]) => Type.Unsafe<string>({ type: 'string', enum: [...values] });
const Penalty = Type.Number({ minimum: -2, maximum: 2, default: 0 });

export const MessagesMessage = Type.Object({
  role: enumOf(['system', 'user', 'assistant']),
  content: Type.String(),
});

export const MessagesRequest = Type.Object(
  {
    model: enumOf(MESSAGES_MODELS),
    messages: Type.Array(MessagesMessage, { minItems: 1 }),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 8192, default: 8192 })),
    temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 2, default: 1 })),
    top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
    frequency_penalty: Type.Optional(Penalty),
    presence_penalty: Type.Optional(Penalty),
    stream: Type.Optional(Type.Boolean({ default: false })),
    stream_options: Type.Optional(Type.Object({ include_usage: Type.Optional(Type.Boolean()) })),
    stop: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
  },
  { title: 'Messages request (alpha models)' },
);

export type MessagesRequestBody = Static<typeof MessagesRequest>;

/** The spec's rules; a model the catalog serves beyond the spec's gets the same rules (issue 21). */
export const validateMessagesRequest = modelKeyedValidator('messages', MessagesRequest);
