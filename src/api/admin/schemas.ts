import { Type, type Static, type TSchema } from 'typebox';
import { compileValidator } from '../../validation/compile.js';
import { PriceSchema, TierSchema } from '../../config/schema.js';
import { CreateKeyBody } from '../management/key-schemas.js';

/** The admin API's own bodies and answers (/admin/api); what the console shares is in management/. */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Admin key creation may name the owning user (issue 12); the operator when absent. */
export const AdminCreateKeyBody = Type.Object(
  { ...CreateKeyBody.properties, owner: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "The owning user's id" })) },
  { additionalProperties: false },
);
export type AdminCreateKeyBody = Static<typeof AdminCreateKeyBody>;
export const validateAdminCreateKey = compileValidator(AdminCreateKeyBody);

export const TiersView = Type.Object({
  object: Type.Literal('tiers'),
  /** 'default' when a tier of that name exists: keys without a tier are in it. */
  default_tier: Nullable(Type.String()),
  data: Type.Record(Type.String(), TierSchema),
});

export const PricesView = Type.Object({
  object: Type.Literal('prices'),
  currency: Type.Literal('USD'),
  data: Type.Record(Type.String(), PriceSchema),
});
