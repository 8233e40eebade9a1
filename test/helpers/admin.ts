import { expect } from 'vitest';
import { call, TEST_ADMIN_TOKEN } from './gateway.js';

/** A call to /admin/api with the test admin token. */
export const admin = (gateway: { url: string }, method: string, path: string, body?: unknown) =>
  call(gateway, method, `/admin/api${path}`, body, { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });

/** Creates a key through the admin API; returns its id and secret. */
export async function createKey(gateway: { url: string }, body: Record<string, unknown>): Promise<{ id: string; key: string; view: any }> {
  const created = await admin(gateway, 'POST', '/keys', { name: 'test', ...body });
  expect(created.status, created.text).toBe(201);
  return { id: created.json.id, key: created.json.key, view: created.json };
}

export const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });
