import { Type, type Static, type TSchema } from 'typebox';
import { MODEL_ID_PATTERN, OPERATOR_FAMILIES, OPERATOR_KINDS } from '../../contracts/endpoint-family.js';
import { PriceSchema } from '../../config/schema.js';
import { compileValidator, PATTERN_RULE } from '../../validation/compile.js';

/** Bodies and answers of /admin/api/models and /admin/api/price-sheet (issue 21). */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const SOURCES = ['spec', 'builtin', 'file', 'runtime'] as const;
const PRICE_SOURCES = ['channel', 'operator', 'builtin'] as const;

export const ModelIdParams = Type.Object({ id: Type.String({ description: 'The public model id' }) });

export const DeleteModelQuery = Type.Object({
  prune: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: "true: also remove the deleted model from every user's allowance and every key's model list" })),
});

const Kind = enumOf(OPERATOR_KINDS);
const Families = Type.Array(enumOf(OPERATOR_FAMILIES), { minItems: 1, uniqueItems: true, description: 'Where it is accepted; by default those of its kind' });
const OwnedBy = Type.String({ minLength: 1, maxLength: 64, description: '`owned_by` in /v1/models; the vendor of the first channel serving it when absent' });

export const CreateModelBody = Type.Object(
  {
    id: Type.String({
      pattern: MODEL_ID_PATTERN,
      // The 400 for a bad id says the rule, not the regex (issue 35).
      [PATTERN_RULE]: 'must start with a letter or digit and hold only letters, digits and . _ @ / + - (at most 128; no colon or space)',
      description: 'Public model id: letters, digits and . _ @ / + - (no colon)',
    }),
    kind: Kind,
    families: Type.Optional(Families),
    owned_by: Type.Optional(OwnedBy),
    price: Type.Optional(PriceSchema),
  },
  { additionalProperties: false },
);
export type CreateModelBody = Static<typeof CreateModelBody>;
export const validateCreateModel = compileValidator(CreateModelBody);

export const PatchModelBody = Type.Object(
  {
    kind: Type.Optional(Kind),
    families: Type.Optional(Families),
    owned_by: Type.Optional(Nullable(OwnedBy)),
    price: Type.Optional(Nullable(PriceSchema)),
  },
  { additionalProperties: false, minProperties: 1, description: "Spec models take `price` only; null `price` puts the file's or the built-in price back" },
);
export type PatchModelBody = Static<typeof PatchModelBody>;
export const validatePatchModel = compileValidator(PatchModelBody);

export const ModelView = Type.Object({
  id: Type.String(),
  vendor: Type.String(),
  kind: Type.String(),
  families: Type.Array(Type.String()),
  source: Type.Unsafe<(typeof SOURCES)[number]>({ type: 'string', enum: [...SOURCES], description: 'spec: the specification; file: the configuration file; runtime: the admin API or console (wins over the file); builtin: the price sheet' }),
  served: Type.Boolean({ description: 'Accepted by the endpoints: a spec model, or one a channel maps' }),
  channels: Type.Array(Type.String(), { description: 'Channels that serve it, in route order (enabled ones)' }),
  simulated: Type.Boolean({ description: 'Only the built-in simulator serves it: its answers are simulated and free unless the operator priced it' }),
  disabled_channels: Type.Array(Type.String()),
  price: Nullable(Type.Record(Type.String(), Type.Unknown(), { description: 'What a request pays unless its channel has its own price' })),
  price_source: Nullable(Type.Unsafe<(typeof PRICE_SOURCES)[number]>({ type: 'string', enum: [...PRICE_SOURCES] })),
  price_runtime: Type.Boolean({ description: "The price was set through the admin API or console (it wins over the file's); null puts the file's or built-in price back" }),
  price_basis: Nullable(Type.String({ description: 'Built-in prices: the sheet model priced, and how the figure was found when not from its own row' })),
});

export const ModelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ModelView) });

export const PriceSheetView = Type.Object({
  object: Type.Literal('price_sheet'),
  currency: Type.Literal('USD'),
  enabled: Type.Boolean({ description: 'false when `builtin_prices: false` turns the sheet off' }),
  vendors: Type.Array(
    Type.Object({
      vendor: Type.String(),
      source: Type.String(),
      checked: Type.String(),
      models: Type.Array(Type.Object({ id: Type.String(), kind: Type.String(), price: Type.Record(Type.String(), Type.Unknown()), basis: Nullable(Type.String()) })),
    }),
  ),
});
