import { Type, type Static, type TSchema } from 'typebox';
import { compileValidator } from '../../validation/compile.js';
import { NO_NUL } from '../../validation/limits.js';
import { BudgetUsd, ENDPOINT_FAMILIES, ModelIds, PerMinute } from './key-schemas.js';

/** People as the admin users API and the console show and take them (issue 12): never a password hash. */
const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const ROLES = ['operator', 'user'] as const;

/** A person as the APIs show them: never the password hash. */
export const UserView = Type.Object({
  id: Type.String(),
  email: Nullable(Type.String()),
  name: Type.String(),
  role: enumOf(ROLES),
  budget_usd: Nullable(Type.Number({ description: "Cap on what the user's keys may add up to" })),
  rpm: Nullable(Type.Integer({ description: "Cap on each of the user's keys" })),
  tpm: Nullable(Type.Integer({ description: "Cap on each of the user's keys" })),
  models: Nullable(Type.Array(Type.String(), { description: 'Models the user may grant; null: all' })),
  families: Nullable(Type.Array(Type.String(), { description: 'Endpoint families the user may grant; null: all' })),
  disabled: Type.Boolean(),
  /** False until the invitation is accepted (the built-in operator signs in with the admin token). */
  has_password: Type.Boolean(),
  created_at: Type.String({ description: 'ISO-8601 date-time' }),
});
export type UserView = Static<typeof UserView>;

const Email = Type.String({ minLength: 3, maxLength: 320, pattern: '^[^@\\s\\u0000]+@[^@\\s\\u0000]+$' });
const userFields = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL }),
  role: enumOf(ROLES),
  budget_usd: Nullable(BudgetUsd),
  rpm: Nullable(PerMinute),
  tpm: Nullable(PerMinute),
  models: Nullable(ModelIds),
  families: Nullable(Type.Array(enumOf(ENDPOINT_FAMILIES), { uniqueItems: true })),
};

export const CreateUserBody = Type.Object(
  {
    email: Email,
    name: userFields.name,
    role: Type.Optional(userFields.role),
    budget_usd: Type.Optional(userFields.budget_usd),
    rpm: Type.Optional(userFields.rpm),
    tpm: Type.Optional(userFields.tpm),
    models: Type.Optional(userFields.models),
    families: Type.Optional(userFields.families),
  },
  { additionalProperties: false },
);
export type CreateUserBody = Static<typeof CreateUserBody>;
export const validateCreateUser = compileValidator(CreateUserBody);

export const PatchUserBody = Type.Object(
  {
    name: Type.Optional(userFields.name),
    role: Type.Optional(userFields.role),
    budget_usd: Type.Optional(userFields.budget_usd),
    rpm: Type.Optional(userFields.rpm),
    tpm: Type.Optional(userFields.tpm),
    models: Type.Optional(userFields.models),
    families: Type.Optional(userFields.families),
    /** true: the user cannot sign in and their sessions end. */
    disabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type PatchUserBody = Static<typeof PatchUserBody>;
export const validatePatchUser = compileValidator(PatchUserBody);

export const InvitationView = Type.Object({
  user: UserView,
  invite_url: Type.String({ description: 'Send this link to the person; it works once, for 7 days' }),
  invite_token: Type.String(),
  invite_expires_at: Type.String({ description: 'ISO-8601 date-time' }),
});

export const UserList = Type.Object({ object: Type.Literal('list'), data: Type.Array(UserView) });
export const UserIdParams = Type.Object({ id: Type.String() });
