import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { admin } from '../../helpers/admin.js';
import { assertEnvelope } from '../../helpers/envelopes.js';
import { consoleCall, inviteUser, signInWithAdminToken, type ConsoleSession } from '../../helpers/console.js';
import { PROVIDERS } from '../../../src/providers/registry.js';

interface VendorAnswer {
  vendor: string;
  default_base_url: string;
  base_url_required: boolean;
  credentials: Array<{ name: string; label: string; required: boolean; secret: boolean; hint: string | null }>;
  default_models: Record<string, string>;
}

/** GET /admin/api/vendors: the registry's vendors and the channel fields each declares (issue 28). */
describe('GET /admin/api/vendors (issue 28)', () => {
  let gateway: TestGateway;
  let operator: ConsoleSession;
  let user: ConsoleSession;
  beforeAll(async () => {
    gateway = await startTestGateway();
    operator = await signInWithAdminToken(gateway);
    user = (await inviteUser(gateway)).session;
  });
  afterAll(() => gateway.stop());

  it('lists every vendor of the registry, in its order, with its fields, base URL and default models', async () => {
    const answer = await admin(gateway, 'GET', '/vendors');
    expect(answer.status).toBe(200);
    const data = answer.json.data as VendorAnswer[];
    expect(data.map((v) => v.vendor)).toEqual(PROVIDERS.map((p) => p.vendor));
    for (const provider of PROVIDERS) {
      const vendor = data.find((v) => v.vendor === provider.vendor)!;
      expect(vendor.default_base_url).toBe(provider.defaultBaseUrl);
      expect(vendor.default_models).toEqual(provider.defaultModels);
      expect(vendor.base_url_required).toBe(provider.channelFields.baseUrlRequired);
      expect(vendor.credentials.map((c) => c.name)).toEqual(provider.channelFields.credentials.map((c) => c.name));
      expect(vendor.credentials.length).toBeGreaterThan(0);
    }
    // What the folders declare, seen from outside: an API-key vendor, a key-pair vendor, one with both and a region.
    const fields = (id: string) => data.find((v) => v.vendor === id)!.credentials.map((c) => `${c.name}${c.required ? '!' : ''}${c.secret ? '*' : ''}`);
    expect(fields('openai')).toEqual(['api_key!*']);
    expect(fields('kling')).toEqual(['access_key!*', 'secret_key!*']);
    expect(fields('volcengine-ark')).toEqual(['api_key!*', 'access_key*', 'secret_key*', 'region']);
  });

  it("answers an operator's console session, refuses a key holder's (403) and no credentials (401)", async () => {
    const viaSession = await consoleCall(gateway, 'GET', '/admin/api/vendors', undefined, { session: operator, csrf: false });
    expect(viaSession.status).toBe(200);
    expect(viaSession.json.data.length).toBe(PROVIDERS.length);
    const keyHolder = await consoleCall(gateway, 'GET', '/admin/api/vendors', undefined, { session: user });
    expect(keyHolder.status).toBe(403);
    assertEnvelope('general', keyHolder.json);
    const anonymous = await consoleCall(gateway, 'GET', '/admin/api/vendors', undefined);
    expect(anonymous.status).toBe(401);
    assertEnvelope('general', anonymous.json);
  });

  it('is documented in /openapi.json like the other admin routes', async () => {
    const doc = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags?: string[]; responses?: Record<string, unknown> }>> };
    const operation = doc.paths['/admin/api/vendors']?.get;
    expect(operation?.tags).toEqual(['admin']);
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['200', '401']));
  });
});

/**
 * The console builds its channel form from the answer above: no vendor id is written in its
 * channel pages (elsewhere `'openai'` is the npm package of a code snippet).
 */
describe('the console names no vendor (issue 28)', () => {
  it('has no vendor id as a string literal in web/src/features/channels', () => {
    const root = join(import.meta.dirname, '..', '..', '..', 'web', 'src', 'features', 'channels');
    const literal = new RegExp(PROVIDERS.map((p) => `['"\`]${p.vendor.replace(/-/g, '\\-')}['"\`]`).join('|'));
    const hits: string[] = [];
    (function walk(dir: string) {
      for (const name of readdirSync(dir)) {
        const full = join(dir, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (/\.tsx?$/.test(name)) readFileSync(full, 'utf8').split('\n').forEach((line, i) => literal.test(line) && hits.push(`${full}:${i + 1}`));
      }
    })(root);
    expect(hits).toEqual([]);
  });
});
