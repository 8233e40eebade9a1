import { Type, type Static, type TSchema } from 'typebox';
import { compileValidator } from '../../validation/compile.js';
import { GROUP_BY, UsageQuery } from '../management/usage-schemas.js';
import { UserView } from '../management/user-schemas.js';
import { PriceSchema } from '../../config/schema.js';
import { NO_NUL } from '../../validation/limits.js';
import { MIN_PASSWORD_LENGTH } from '../../users/passwords.js';

/** The console API's own bodies and answers (/console/api); what the admin API shares is in management/. */
const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const SessionView = Type.Object({
  user: UserView,
  csrf_token: Type.String({ description: 'Send it back in the x-csrf-token header on every state-changing request' }),
  expires_at: Type.String({ description: 'ISO-8601 date-time; the session slides forward while used' }),
});

export const SignInOptionsView = Type.Object({
  password_sign_in: Type.Boolean({ description: 'Whether any user has set a password; false on a fresh install, where only the admin token signs in' }),
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
