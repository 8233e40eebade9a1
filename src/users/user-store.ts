import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connect.js';
import type { UserTable } from '../db/schema.js';
import type { EndpointFamily } from '../contracts/endpoint-family.js';
import { OPERATOR_USER_ID } from '../keys/key-store.js';

export type UserRole = 'operator' | 'user';

export interface User {
  id: string;
  email: string | null;
  name: string;
  role: UserRole;
  passwordHash: string | null;
  /** What the user's keys may add up to (budgets of live keys + what revoked keys spent); null: no cap. */
  budgetUsd: number | null;
  /** Caps on each key's rpm/tpm; null: no cap. */
  rpm: number | null;
  tpm: number | null;
  /** Model ids and endpoint families the user may grant; null: all. */
  models: readonly string[] | null;
  families: readonly EndpointFamily[] | null;
  disabledAt: number | null;
  createdAt: number;
}

/** A change to a user; `null` clears a cap or list. */
export interface UserPatch {
  name?: string;
  role?: UserRole;
  budgetUsd?: number | null;
  rpm?: number | null;
  tpm?: number | null;
  models?: readonly string[] | null;
  families?: readonly EndpointFamily[] | null;
  disabled?: boolean;
}

export interface CreateUserInput extends Omit<UserPatch, 'disabled'> {
  email: string;
  name: string;
}

/** Emails compare without case: `Ann@x.org` and `ann@x.org` are one person. */
export const normaliseEmail = (email: string): string => email.trim().toLowerCase();

/** The users table (operators and key holders). Console traffic only: no cache. */
export class UserStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async get(id: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toUser(row) : undefined;
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('email', '=', normaliseEmail(email)).executeTakeFirst();
    return row ? toUser(row) : undefined;
  }

  /** Whether anyone can sign in with an email and password yet (a fresh install has only the admin token). */
  async anyHasPassword(): Promise<boolean> {
    const row = await this.db.selectFrom('users').select('id').where('password_hash', 'is not', null).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async list(): Promise<User[]> {
    const rows = await this.db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
    return rows.map(toUser);
  }

  /** Undefined when the email is taken. */
  async create(input: CreateUserInput): Promise<User | undefined> {
    const email = normaliseEmail(input.email);
    if (await this.findByEmail(email)) return undefined;
    const row: UserTable = {
      id: `usr_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      email,
      name: input.name,
      role: input.role ?? 'user',
      password_hash: null,
      budget_usd: input.budgetUsd ?? null,
      rpm: input.rpm ?? null,
      tpm: input.tpm ?? null,
      models: input.models ? JSON.stringify(input.models) : null,
      families: input.families ? JSON.stringify(input.families) : null,
      disabled_at: null,
      created_at: this.now(),
    };
    try {
      await this.db.insertInto('users').values(row).execute();
    } catch (error) {
      // Two operators inviting the same address at once: the unique index decides.
      if (await this.findByEmail(email)) return undefined;
      throw error;
    }
    return toUser(row);
  }

  async update(id: string, patch: UserPatch): Promise<User | undefined> {
    const set: Partial<UserTable> = {};
    if (patch.name !== undefined) set.name = patch.name;
    if (patch.role !== undefined) set.role = patch.role;
    if (patch.budgetUsd !== undefined) set.budget_usd = patch.budgetUsd;
    if (patch.rpm !== undefined) set.rpm = patch.rpm;
    if (patch.tpm !== undefined) set.tpm = patch.tpm;
    if (patch.models !== undefined) set.models = patch.models === null ? null : JSON.stringify(patch.models);
    if (patch.families !== undefined) set.families = patch.families === null ? null : JSON.stringify(patch.families);
    if (patch.disabled !== undefined) set.disabled_at = patch.disabled ? this.now() : null;
    if (Object.keys(set).length > 0) await this.db.updateTable('users').set(set).where('id', '=', id).execute();
    return this.get(id);
  }

  async setPassword(id: string, passwordHash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
  }

  /** Removes the user's row and invitations (sessions and keys are the caller's to end). */
  async delete(id: string): Promise<boolean> {
    if (id === OPERATOR_USER_ID) return false;
    await this.db.deleteFrom('invitations').where('user_id', '=', id).execute();
    const result = await this.db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Email by user id, for showing owners next to keys. */
  async emailsById(): Promise<Map<string, string | null>> {
    const rows = await this.db.selectFrom('users').select(['id', 'email']).execute();
    return new Map(rows.map((r) => [r.id, r.email]));
  }
}

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

export function toUser(row: UserTable): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role === 'operator' ? 'operator' : 'user',
    passwordHash: row.password_hash,
    budgetUsd: numberOrNull(row.budget_usd),
    rpm: numberOrNull(row.rpm),
    tpm: numberOrNull(row.tpm),
    models: row.models ? (JSON.parse(row.models) as string[]) : null,
    families: row.families ? (JSON.parse(row.families) as EndpointFamily[]) : null,
    disabledAt: numberOrNull(row.disabled_at),
    createdAt: Number(row.created_at),
  };
}
