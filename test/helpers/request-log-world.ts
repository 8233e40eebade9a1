import { expect } from 'vitest';
import type { FileConfig } from '../../src/config/schema.js';
import { call, startTestGateway, type TestGateway } from './gateway.js';
import { bearer } from './admin.js';
import { consoleCall, inviteUser, type ConsoleSession } from './console.js';

/** A small chat request for the request-log tests, with the given key. */
export const chat = (gateway: TestGateway, secret: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  call(gateway, 'POST', '/v1/chat/completions', { model: 'delta-4.1', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5, ...body }, { ...bearer(secret), ...headers });

export interface RequestLogWorld {
  gateway: TestGateway;
  ann: { session: ConsoleSession; id: string; email: string };
  annKey: { id: string; key: string };
}

/**
 * A gateway whose delta-4.1 channel fails the first request with a 503 (retried on the same
 * channel, then answered), and a key holder, Ann, with one key of her own made in the console.
 */
export async function startRequestLogWorld(file: FileConfig = {}): Promise<RequestLogWorld> {
  const gateway = await startTestGateway({
    file: { ...file, channels: [{ name: 'flaky-openai', vendor: 'openai', models: { 'delta-4.1': 'gpt-4.1' }, simulator: { fault_status: 503, fault_times: 1 } }] },
  });
  const ann = await inviteUser(gateway, { name: 'Ann' });
  const created = await consoleCall(gateway, 'POST', '/console/api/keys', { name: 'ann-key' }, { session: ann.session });
  expect(created.status, created.text).toBe(201);
  return { gateway, ann, annKey: { id: created.json.id, key: created.json.key } };
}
