import { Type, type Static, type TSchema } from 'typebox';
import { compileValidator } from '../../validation/compile.js';
import { BudgetUsd, ENDPOINT_FAMILIES, GROUP_BY, ModelIds, PerMinute, UsageQuery } from '../admin/schemas.js';
import { PriceSchema } from '../../config/schema.js';
import { NO_NUL } from '../../validation/limits.js';
import { MIN_PASSWORD_LENGTH } from '../../users/passwords.js';

/** Bodies and answers of the console API (/console/api) and the admin users API (issue 12). */
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

export const SessionView = Type.Object({
  user: UserView,
  csrf_token: Type.String({ description: 'Send it back in the x-csrf-token header on every state-changing request' }),
  expires_at: Type.String({ description: 'ISO-8601 date-time; the session slides forward while used' }),
});

export const SignInBody = Type.Object(
  {
    admin_token: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    email: Type.Optional(Type.String({ minLength: 3, maxLength: 320 })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
  },
  { additionalProperties: false, description: 'Either admin_token, or email and password' },
);
export type SignInBody = Static<typeof SignInBody>;
export const validateSignIn = compileValidator(SignInBody);

export const AcceptInviteBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200 }),
    password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: 1024 }),
  },
  { additionalProperties: false },
);
export type AcceptInviteBody = Static<typeof AcceptInviteBody>;
export const validateAcceptInvite = compileValidator(AcceptInviteBody);

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

/** The admin usage query without the `user` filter and grouping: a key holder sees only their own. */
const { user: _user, group_by: _groupBy, ...consoleUsageFields } = UsageQuery.properties;
export const CONSOLE_GROUP_BY = GROUP_BY.filter((g) => g !== 'user' && g !== 'user_model');
export const ConsoleUsageQuery = Type.Object({ ...consoleUsageFields, group_by: Type.Optional(enumOf(CONSOLE_GROUP_BY)) }, { additionalProperties: false });
export type ConsoleUsageQuery = Static<typeof ConsoleUsageQuery>;
export const validateConsoleUsageQuery = compileValidator(ConsoleUsageQuery);

export const ConsoleModel = Type.Object({
  id: Type.String(),
  vendor: Type.String(),
  families: Type.Array(Type.String()),
  price: Nullable(PriceSchema),
});
export const ConsoleModelList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ConsoleModel) });
