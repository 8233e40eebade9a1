import type { User } from '../../users/user-store.js';
import type { UserView } from './user-schemas.js';
import { knownModelsOnly, type KnownModel } from './known-models.js';

/** What the APIs show of a user: never the password hash, only whether one is set. */
export function toUserView(user: User, known?: KnownModel): UserView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role: user.role,
    budget_usd: user.budgetUsd,
    rpm: user.rpm,
    tpm: user.tpm,
    models: knownModelsOnly(user.models, known),
    families: user.families ? [...user.families] : null,
    disabled: user.disabledAt !== null,
    has_password: user.passwordHash !== null,
    created_at: new Date(user.createdAt).toISOString(),
  };
}
