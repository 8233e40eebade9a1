import { Type, type Static, type TSchema } from 'typebox';
import { compileValidator } from '../../validation/compile.js';

/** Bodies and answers of the channel and model endpoints of /admin/api (issue 12). */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const CIRCUIT_STATES = ['closed', 'half_open', 'open'] as const;

const Weight = Type.Integer({ minimum: 1, maximum: 1000 });
const Priority = Type.Integer({ minimum: -1000, maximum: 1000, description: 'Lower is tried first' });

export const ChannelIdParams = Type.Object({ id: Type.String({ description: "The channel's name" }) });

export const ChannelView = Type.Object({
  id: Type.String({ description: "The channel's name" }),
  vendor: Type.String(),
  base_url: Type.String({ description: 'Where its requests go (no credentials); the built-in simulator for simulator channels' }),
  simulator: Type.Boolean(),
  enabled: Type.Boolean(),
  weight: Weight,
  priority: Priority,
  file: Type.Object(
    { enabled: Type.Boolean(), weight: Weight, priority: Priority },
    { description: 'The values in the configuration file; a setting changed at runtime wins until reset with null' },
  ),
  overridden: Type.Boolean({ description: 'A runtime setting differs from the file' }),
  models: Type.Array(Type.String(), { description: 'Public model ids it serves' }),
  circuit: Type.Unsafe<(typeof CIRCUIT_STATES)[number]>({ type: 'string', enum: [...CIRCUIT_STATES] }),
  window_s: Type.Integer({ description: 'The span of the figures below, in seconds (this instance only)' }),
  requests: Type.Integer({ description: 'Upstream attempts in the window' }),
  error_rate: Nullable(Type.Number({ description: "Share of attempts that failed for the channel's sake (0..1)" })),
  latency_p50_ms: Nullable(Type.Integer({ description: "Time to the upstream's answer (its head; a stream's first event)" })),
  latency_p99_ms: Nullable(Type.Integer()),
  last_error: Nullable(Type.Object({ at: Type.String(), status: Nullable(Type.Integer()), message: Type.String() })),
});

export const ChannelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ChannelView) });

export const PatchChannelBody = Type.Object(
  {
    enabled: Type.Optional(Nullable(Type.Boolean())),
    weight: Type.Optional(Nullable(Weight)),
    priority: Type.Optional(Nullable(Priority)),
  },
  { additionalProperties: false, minProperties: 1, description: 'Kept in the database and applied at once on every instance; null puts the file value back' },
);
export type PatchChannelBody = Static<typeof PatchChannelBody>;
export const validatePatchChannel = compileValidator(PatchChannelBody);

export const TestChannelBody = Type.Object(
  { model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'One of the models it serves; by default its first text model' })) },
  { additionalProperties: false },
);
export type TestChannelBody = Static<typeof TestChannelBody>;
export const validateTestChannel = compileValidator(TestChannelBody);

export const ChannelTestResult = Type.Object({
  ok: Type.Boolean(),
  model: Type.String(),
  status: Nullable(Type.Integer({ description: 'What the gateway would have answered a client' })),
  latency_ms: Type.Integer(),
  reply: Nullable(Type.String({ description: "The start of the model's answer" })),
  error: Nullable(Type.String()),
});
