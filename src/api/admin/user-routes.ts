import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Catalog } from '../../catalog/catalog.js';
import { checkModelIds } from '../management/key-input.js';
import { GatewayError } from '../../errors.js';
import { OPERATOR_USER_ID, type KeyStore } from '../../keys/key-store.js';
import { Invitations } from '../../users/invitations.js';
import { SessionStore } from '../../users/session-store.js';
import type { User, UserPatch, UserStore } from '../../users/user-store.js';
import { validated } from '../management/route-validation.js';
import {
  CreateUserBody, InvitationView, PatchUserBody, UserIdParams, UserList, UserView,
  validateCreateUser, validatePatchUser, type CreateUserBody as CreateBody, type PatchUserBody as PatchBody,
} from '../management/user-schemas.js';
import { toUserView } from '../management/user-view.js';

export interface AdminUserRouteTools {
  users: UserStore;
  keys: KeyStore;
  /** The admin plugin's route options (public for the API-key hook, tagged, documented). */
  opts: (summary: string, schema?: Record<string, unknown>) => object;
}

const toPatch = (body: PatchBody, catalog: Catalog): UserPatch => {
  checkModelIds(body.models, catalog);
  const patch: UserPatch = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.role !== undefined) patch.role = body.role;
  if (body.budget_usd !== undefined) patch.budgetUsd = body.budget_usd;
  if (body.rpm !== undefined) patch.rpm = body.rpm;
  if (body.tpm !== undefined) patch.tpm = body.tpm;
  if (body.models !== undefined) patch.models = body.models;
  if (body.families !== undefined) patch.families = body.families;
  if (body.disabled !== undefined) patch.disabled = body.disabled;
  return patch;
};

/**
 * Users and invitations under /admin/api/users (issue 12). Registered inside the admin plugin,
 * so its authentication hook (admin token or operator session) guards these routes too.
 */
export async function adminUserRoutes(app: FastifyInstance, { users, keys, opts }: AdminUserRouteTools): Promise<void> {
  const { db, now, publicUrl } = app.gateway;
  const sessions = new SessionStore(db, now);
  const invitations = new Invitations(db, now);
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;
  const known = (id: string) => app.gateway.catalog.find(id) !== undefined;
  const found = async (id: string): Promise<User> => {
    const user = await users.get(id);
    if (!user) throw new GatewayError('GW_RESOURCE_NOT_FOUND', `No user '${id}'`);
    return user;
  };
  const invite = async (user: User, request: FastifyRequest) => {
    const { token, expiresAt } = await invitations.create(user.id);
    return {
      user: toUserView(user, known),
      // The token rides in the fragment: browsers never send it to a server or in a Referer.
      invite_url: `${publicUrl(request)}/console/invite#token=${token}`,
      invite_token: token,
      invite_expires_at: new Date(expiresAt).toISOString(),
    };
  };

  app.get('/admin/api/users', opts('List users (operators and key holders)', { tags: ['admin', 'console'], response: { 200: UserList } }), async () => ({
    object: 'list' as const,
    data: (await users.list()).map((user) => toUserView(user, known)),
  }));

  app.post(
    '/admin/api/users',
    { ...opts('Invite a user: answers the invitation link (works once, for 7 days)', { body: CreateUserBody, response: { 201: InvitationView } }), validatorCompiler: validated(validateCreateUser) },
    async (request, reply) => {
      const body = request.body as CreateBody;
      const created = await users.create({
        email: body.email,
        name: body.name,
        ...(body.role === undefined ? {} : { role: body.role }),
        ...toPatch({ budget_usd: body.budget_usd, rpm: body.rpm, tpm: body.tpm, models: body.models, families: body.families }, app.gateway.catalog),
      });
      if (!created) throw new GatewayError('GW_CONFLICT', `A user with the email '${body.email}' exists already`);
      return reply.code(201).send(await invite(created, request));
    },
  );

  app.get('/admin/api/users/:id', opts('Get a user', { params: UserIdParams, response: { 200: UserView } }), async (request) => toUserView(await found(idOf(request)), known));

  app.patch(
    '/admin/api/users/:id',
    {
      ...opts("Change a user (null clears a cap or list); disabling ends their sessions and refuses their keys until re-enabled. Keys keep their own settings.", { params: UserIdParams, body: PatchUserBody, response: { 200: UserView } }),
      validatorCompiler: validated(validatePatchUser),
    },
    async (request) => {
      const id = idOf(request);
      await found(id);
      const body = request.body as PatchBody;
      if (id === OPERATOR_USER_ID && ((body.role !== undefined && body.role !== 'operator') || body.disabled === true)) {
        throw new GatewayError('GW_REQ_INVALID_PARAM', "The built-in operator cannot be demoted or disabled (it is who the admin token signs in as)");
      }
      const updated = await users.update(id, toPatch(body, app.gateway.catalog));
      // A disabled user is signed out everywhere; a demoted operator must sign in again as a user.
      if (body.disabled === true || body.role === 'user') await sessions.deleteAllOf(id);
      // Their keys are refused while they are disabled (key-store.ts): every instance looks them up afresh.
      if (body.disabled !== undefined) await keys.ownerChanged(id);
      return toUserView(updated ?? (await found(id)), known);
    },
  );

  app.delete('/admin/api/users/:id', opts("Remove a user: revokes their keys and ends their sessions", { params: UserIdParams, response: { 204: { type: 'null' } } }), async (request, reply) => {
    const id = idOf(request);
    await found(id);
    if (id === OPERATOR_USER_ID) throw new GatewayError('GW_REQ_INVALID_PARAM', 'The built-in operator cannot be removed');
    await keys.revokeAllOf(id);
    await sessions.deleteAllOf(id);
    await users.delete(id);
    return reply.code(204).send();
  });

  app.post(
    '/admin/api/users/:id/invite',
    opts('A fresh invitation link for a user (earlier unused links stop working); also resets a forgotten password', { params: UserIdParams, response: { 201: InvitationView } }),
    async (request, reply) => {
      const user = await found(idOf(request));
      if (user.id === OPERATOR_USER_ID) throw new GatewayError('GW_REQ_INVALID_PARAM', 'The built-in operator signs in with the admin token, not an invitation');
      return reply.code(201).send(await invite(user, request));
    },
  );
}
