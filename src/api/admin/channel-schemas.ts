import { Type, type Static, type TSchema } from 'typebox';
import { compileValidator } from '../../validation/compile.js';
import { ChannelSchema } from '../../config/schema.js';
import { CHANNEL_FIELDS } from '../../providers/registry.js';

/** Bodies and answers of the channel and model endpoints of /admin/api (issue 12). */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const CIRCUIT_STATES = ['closed', 'half_open', 'open'] as const;

const Weight = Type.Integer({ minimum: 1, maximum: 1000 });
const Priority = Type.Integer({ minimum: -1000, maximum: 1000, description: 'Lower is tried first' });

export const ChannelIdParams = Type.Object({ id: Type.String({ description: "The channel's name" }) });

export const ChannelTestResult = Type.Object({
  at: Type.String({ description: 'When the test ran (ISO-8601)' }),
  ok: Type.Boolean(),
  model: Type.String(),
  status: Nullable(Type.Integer({ description: 'What the gateway would have answered a client' })),
  latency_ms: Type.Integer(),
  reply: Nullable(Type.String({ description: "The start of the model's answer" })),
  error: Nullable(Type.String()),
  vendor_status: Nullable(Type.Integer({ description: "The upstream's own HTTP status; null when it answered or never did" })),
  vendor_message: Nullable(Type.String({ description: "The upstream's own error text, redacted of the channel's credentials" })),
});

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
  source: Type.Unsafe<'file' | 'runtime' | 'default'>({ type: 'string', enum: ['file', 'runtime', 'default'], description: 'file: the configuration file; runtime: added through the admin API or console; default: the built-in simulator for models nothing else serves' }),
  runtime_override: Type.Boolean({ description: 'A file channel whose fields were changed at runtime (DELETE puts the file back)' }),
  model_map: Type.Record(Type.String(), Type.String(), { description: 'Public model id → the upstream model name' }),
  credentials: Type.Object(
    Object.fromEntries([...CHANNEL_FIELDS.values()].filter((field) => field.secret).map((field) => [field.name, Nullable(Type.String())])),
    { description: "Every vendor's secret fields (GET /admin/api/vendors), masked: a key's last four characters at most, only •••• for a key file or PEM block; never the secret" },
  ),
  headers: Type.Record(Type.String(), Type.String(), { description: 'Header names, values masked' }),
  region: Nullable(Type.String()),
  settings: Type.Record(Type.String(), Type.String(), { description: "The non-secret fields its vendor declares that it has (api_version, tenant_id, project, region…), shown for editing" }),
  row_fields: Type.Array(Type.Object({ name: Type.String(), label: Type.String(), value: Type.String() }), { description: "The fields its vendor marks for the console's channel row, secrets masked" }),
  max_retries: Type.Integer(),
  timeouts: Type.Object({ connect_ms: Type.Integer(), first_byte_ms: Type.Integer(), idle_ms: Type.Integer(), total_ms: Type.Integer() }),
  prices: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: "This channel's prices by public model id" })),
  circuit: Type.Unsafe<(typeof CIRCUIT_STATES)[number]>({ type: 'string', enum: [...CIRCUIT_STATES] }),
  window_s: Type.Integer({ description: 'The span of the figures below, in seconds (this instance only)' }),
  requests: Type.Integer({ description: 'Upstream attempts in the window' }),
  error_rate: Nullable(Type.Number({ description: "Share of attempts that failed for the channel's sake (0..1)" })),
  latency_p50_ms: Nullable(Type.Integer({ description: "Time to the upstream's answer (its head; a stream's first event)" })),
  latency_p99_ms: Nullable(Type.Integer()),
  last_error: Nullable(Type.Object({ at: Type.String(), status: Nullable(Type.Integer()), message: Type.String(), vendor_message: Nullable(Type.String({ description: "The upstream's own error text, redacted of the channel's credentials" })) })),
  auto_disable_after_auth_failures: Nullable(Type.Integer({ description: "Consecutive vendor 401/403 answers that disable it (its own setting, else routing's); null: never" })),
  auto_disabled: Nullable(
    Type.Object(
      {
        at: Type.String(),
        failures: Type.Integer(),
        status: Nullable(Type.Integer()),
        message: Type.String(),
        vendor_message: Nullable(Type.String({ description: "The vendor's own text, redacted of the channel's credentials" })),
      },
      { description: 'Why the gateway disabled it (consecutive authentication failures); null unless it is disabled for that reason. Enabling it clears this' },
    ),
  ),
  /** The last test of it (POST …/test), kept for every instance. */
  last_test: Nullable(ChannelTestResult),
});

export const ChannelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ChannelView) });

/** A channel's name: what logs, metrics and the request log show (`simulator-…` is the default channels'). */
const ChannelName = Type.String({ pattern: '^(?!simulator-)[A-Za-z0-9][A-Za-z0-9._-]{0,99}$', description: "Letters, digits and . _ - (at most 100; not 'simulator-…')" });

/** POST /admin/api/channels: the same fields as a channel of the configuration file (issue 21). */
export const CreateChannelBody = Type.Object({ ...ChannelSchema.properties, name: ChannelName }, { additionalProperties: false });
export type CreateChannelBody = Static<typeof CreateChannelBody>;
export const validateCreateChannel = compileValidator(CreateChannelBody);

/** A property schema without its optional mark (the spread copies only its enumerable JSON Schema keys). */
const plain = (schema: TSchema): TSchema => ({ ...schema }) as TSchema;
const { name: _name, enabled: _enabled, weight: _weight, priority: _priority, vendor, models, ...optionalFields } = ChannelSchema.properties;
const nullableFields = Object.fromEntries(Object.entries(optionalFields).map(([field, schema]) => [field, Type.Optional(Nullable(plain(schema)))]));

export const PatchChannelBody = Type.Object(
  {
    enabled: Type.Optional(Nullable(Type.Boolean())),
    weight: Type.Optional(Nullable(Weight)),
    priority: Type.Optional(Nullable(Priority)),
    vendor: Type.Optional(plain(vendor)),
    models: Type.Optional(plain(models)),
    ...nullableFields,
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      "enabled, weight and priority are runtime settings (null puts the definition's value back); the other fields change the channel's definition, kept in the database (for a file channel, over the file's: null puts the file's value back). Applied on every instance within seconds.",
  },
);
export type PatchChannelBody = Static<typeof PatchChannelBody>;
export const validatePatchChannel = compileValidator(PatchChannelBody);

export const TestChannelBody = Type.Object(
  { model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'One of the models it serves; by default its first text model' })) },
  { additionalProperties: false },
);
export type TestChannelBody = Static<typeof TestChannelBody>;
export const validateTestChannel = compileValidator(TestChannelBody);

