import { expect } from 'vitest';
import { Agent, fetch as undiciFetch } from 'undici';
import { admin } from './admin.js';
import { TEST_ADMIN_TOKEN } from './gateway.js';

/** A signed-in browser, reduced to what it sends: the session cookie and the CSRF token. */
export interface ConsoleSession {
  cookie: string;
  csrf: string;
  user: any;
  /** The raw Set-Cookie header of the sign-in answer. */
  setCookie: string;
}

export interface ConsoleResponse {
  status: number;
  headers: { get(name: string): string | null };
  json: any;
  text: string;
}

/** Requests leave from this loopback address (127.0.0.0/8 is all loopback on Linux), so sign-in limits per IP can be tested. */
const agents = new Map<string, Agent>();
const agentFrom = (localAddress: string): Agent => {
  let agent = agents.get(localAddress);
  if (!agent) agents.set(localAddress, (agent = new Agent({ localAddress })));
  return agent;
};

export interface ConsoleCallOptions {
  session?: ConsoleSession | undefined;
  /** The CSRF header to send: the session's by default, a given string, or none (`false`). */
  csrf?: string | false;
  headers?: Record<string, string>;
  from?: string;
}

/** fetch with a console session (cookie + CSRF header on writes); JSON-encodes object bodies. */
export async function consoleCall(gateway: { url: string }, method: string, path: string, body?: unknown, options: ConsoleCallOptions = {}): Promise<ConsoleResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.session) headers.cookie = options.session.cookie;
  const csrf = options.csrf === undefined ? options.session?.csrf : options.csrf;
  if (csrf) headers['x-csrf-token'] = csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await undiciFetch(gateway.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    ...(options.from ? { dispatcher: agentFrom(options.from) } : {}),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** The session from a sign-in (or invite acceptance) answer. */
export function sessionFrom(response: ConsoleResponse): ConsoleSession {
  expect(response.status, response.text).toBe(200);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  expect(cookie).toMatch(/^gw_session=[\w-]{20,}$/);
  return { cookie, csrf: response.json.csrf_token, user: response.json.user, setCookie };
}

export const signInWithAdminToken = async (gateway: { url: string }): Promise<ConsoleSession> =>
  sessionFrom(await consoleCall(gateway, 'POST', '/console/api/session', { admin_token: TEST_ADMIN_TOKEN }));

export const signIn = async (gateway: { url: string }, email: string, password: string): Promise<ConsoleSession> =>
  sessionFrom(await consoleCall(gateway, 'POST', '/console/api/session', { email, password }));

let invited = 0;

/** An operator invites a person (admin API), who accepts with a password and is signed in. */
export async function inviteUser(
  gateway: { url: string },
  body: Record<string, unknown> = {},
  password = 'correct horse battery staple',
): Promise<{ session: ConsoleSession; id: string; email: string; password: string }> {
  const email = (body.email as string | undefined) ?? `person${++invited}-${Date.now()}@example.org`;
  const created = await admin(gateway, 'POST', '/users', { name: 'A person', ...body, email });
  expect(created.status, created.text).toBe(201);
  const accepted = await consoleCall(gateway, 'POST', '/console/api/invite/accept', { token: created.json.invite_token, password });
  return { session: sessionFrom(accepted), id: created.json.user.id, email, password };
}
