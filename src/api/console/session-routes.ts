import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../errors.js';
import { verifyAdminToken } from '../../keys/bootstrap.js';
import { OPERATOR_USER_ID } from '../../keys/key-store.js';
import { Invitations } from '../../users/invitations.js';
import { hashPassword, passwordMatches } from '../../users/passwords.js';
import { SESSION_MAX_MS, type Session, type SessionStore } from '../../users/session-store.js';
import { ADMIN_TOKEN_ACCOUNT } from '../../users/sign-in-limiter.js';
import { normaliseEmail, type User, type UserStore } from '../../users/user-store.js';
import { validated } from '../management/route-validation.js';
import { AcceptInviteBody, SessionView, SignInBody, SignInOptionsView, validateAcceptInvite, validateSignIn, type AcceptInviteBody as AcceptBody, type SignInBody as SignIn } from './schemas.js';
import { clearedSessionCookie, sessionCookie, sessionOfRequest } from '../management/session-auth.js';
import { toUserView } from '../management/user-view.js';
import type { ConsoleRouteTools } from './route-tools.js';


/** Sign-in, the session, sign-out (here and everywhere) and accepting an invitation. */
export async function consoleSessionRoutes(app: FastifyInstance, { sessions, users, opts }: ConsoleRouteTools): Promise<void> {
  const { db, now, config } = app.gateway;
  const limiter = app.signInLimiter;
  const invitations = new Invitations(db, now);
  const publicUrl = config.publicUrl;

  const sessionAnswer = (session: Session) => ({ user: toUserView(session.user, (id) => app.gateway.catalog.find(id) !== undefined), csrf_token: session.csrfToken, expires_at: new Date(session.expiresAt).toISOString() });
  const signIn = async (request: FastifyRequest, reply: FastifyReply, user: User, method: Session['method']) => {
    const { token, session } = await sessions.create(user, method);
    // The cookie outlives the idle expiry (which slides on the server); the server decides when it ends.
    reply.header('set-cookie', sessionCookie(request, token, SESSION_MAX_MS, publicUrl));
    return sessionAnswer(session);
  };

  app.post(
    '/console/api/session',
    {
      ...opts('Sign in with the admin token (as the built-in operator) or an email and password; sets the session cookie', { security: [], body: SignInBody, response: { 200: SessionView } }),
      validatorCompiler: validated(validateSignIn),
    },
    async (request, reply) => {
      const body = request.body as SignIn;
      const byToken = body.admin_token !== undefined;
      if (byToken === (body.email !== undefined || body.password !== undefined) || (!byToken && (body.email === undefined || body.password === undefined))) {
        throw new GatewayError('GW_REQ_INVALID_PARAM', "Send either 'admin_token', or 'email' and 'password'");
      }
      if (byToken) {
        // The admin token costs a hash to check, so it is checked first: the right one always signs in (issue 34).
        const operator = (await verifyAdminToken(db, body.admin_token!)) ? await users.get(OPERATOR_USER_ID) : undefined;
        if (operator) {
          await sessions.deleteExpired();
          return signIn(request, reply, operator, 'admin_token');
        }
        const wait = await limiter.judge(request.ip, ADMIN_TOKEN_ACCOUNT, false);
        if (wait !== undefined) throw new GatewayError('GW_SIGN_IN_RATE_LIMITED', `Too many failed sign-ins from this address; try again in ${wait} s.`, { retryAfterSeconds: wait });
        throw new GatewayError('GW_SIGN_IN_FAILED', 'Invalid admin token.');
      }
      const account = normaliseEmail(body.email!);
      // The attempt is taken before the password is verified (issue 23): parallel tries cannot all be checked.
      const taken = await limiter.take(request.ip, account);
      if ('retryAfterSeconds' in taken) {
        throw new GatewayError('GW_SIGN_IN_RATE_LIMITED', `Too many failed sign-ins from this address; try again in ${taken.retryAfterSeconds} s.`, { retryAfterSeconds: taken.retryAfterSeconds });
      }

      let user: User | undefined;
      const found = await users.findByEmail(account);
      // Verified even when nobody has this email, so the answer takes as long either way.
      if (await passwordMatches(found?.passwordHash ?? null, body.password!)) user = found;
      if (!user) {
        await taken.attempt.failed();
        throw new GatewayError('GW_SIGN_IN_FAILED', 'Wrong email or password.');
      }
      await taken.attempt.succeeded();
      if (user.disabledAt !== null) throw new GatewayError('GW_PERMISSION_DENIED', 'This account has been disabled by an operator.');
      await sessions.deleteExpired();
      return signIn(request, reply, user, 'password');
    },
  );

  // The sign-in page opens on the tab that can work: a fresh install has no password yet, only the admin token (issue 35).
  app.get(
    '/console/api/sign-in-options',
    opts('How one can sign in here: whether any user has a password yet (if not, only the admin token works)', { security: [], response: { 200: SignInOptionsView } }),
    async () => ({ password_sign_in: await users.anyHasPassword() }),
  );

  app.get('/console/api/session', opts('The signed-in user and the CSRF token for this session', { response: { 200: SessionView } }), async (request) =>
    sessionAnswer(sessionOfRequest(request)),
  );

  app.delete('/console/api/session', opts('Sign out (this session)', { response: { 204: { type: 'null' } } }), async (request, reply) => {
    await sessions.delete(sessionOfRequest(request).tokenHash);
    return reply.header('set-cookie', clearedSessionCookie(request, publicUrl)).code(204).send();
  });

  app.post('/console/api/session/revoke-all', opts("Sign out everywhere: ends every session of the signed-in user", { response: { 204: { type: 'null' } } }), async (request, reply) => {
    await sessions.deleteAllOf(sessionOfRequest(request).user.id);
    return reply.header('set-cookie', clearedSessionCookie(request, publicUrl)).code(204).send();
  });

  app.post(
    '/console/api/invite/accept',
    {
      ...opts('Accept an invitation: set a password (at least 10 characters) and sign in', { security: [], body: AcceptInviteBody, response: { 200: SessionView } }),
      validatorCompiler: validated(validateAcceptInvite),
    },
    async (request, reply) => {
      const body = request.body as AcceptBody;
      const userId = await invitations.consume(body.token);
      const user = userId === undefined ? undefined : await users.get(userId);
      if (!user) throw new GatewayError('GW_INVITATION_INVALID', 'This invitation link is unknown, used or expired; ask an operator for a new one.');
      if (user.disabledAt !== null) throw new GatewayError('GW_PERMISSION_DENIED', 'This account has been disabled by an operator.');
      const passwordHash = await hashPassword(body.password);
      await users.setPassword(user.id, passwordHash);
      // A new password ends the sessions signed in with the old one.
      await sessions.deleteAllOf(user.id);
      return signIn(request, reply, { ...user, passwordHash }, 'password');
    },
  );
}
