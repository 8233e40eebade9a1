import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BOOTSTRAP_KEY_SETTING } from '../../src/keys/bootstrap.js';
import { call, startTestGateway } from '../helpers/gateway.js';

/** Issue 15: changing GATEWAY_BOOTSTRAP_KEY retires the key the previous value made. */
const A = 'sk-gw-bootstrap-aaaaaaaaaaaaaaaaaaaa';
const B = 'sk-gw-bootstrap-bbbbbbbbbbbbbbbbbbbb';
const C = 'sk-gw-bootstrap-cccccccccccccccccccc';
const models = (gateway: { url: string }, secret: string) => call(gateway, 'GET', '/v1/models', undefined, { authorization: `Bearer ${secret}` }).then((r) => r.status);

describe('bootstrap key rotation', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bootstrap-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('a new value revokes the old key at the next start; the same value changes nothing', async () => {
    const first = await startTestGateway({ dataDir, env: { bootstrapKey: A } });
    expect(await models(first, A)).toBe(200);
    await first.stop({ keepData: true });

    const same = await startTestGateway({ dataDir, env: { bootstrapKey: A } });
    expect(await models(same, A)).toBe(200);
    await same.stop({ keepData: true });

    const rotated = await startTestGateway({ dataDir, env: { bootstrapKey: B } });
    expect(await models(rotated, B)).toBe(200);
    expect(await models(rotated, A)).toBe(401);
    // A store from before the setting existed: the live keys named 'bootstrap' are the old ones.
    await rotated.deps.db.deleteFrom('settings').where('name', '=', BOOTSTRAP_KEY_SETTING).execute();
    await rotated.stop({ keepData: true });

    const legacy = await startTestGateway({ dataDir, env: { bootstrapKey: C } });
    try {
      expect(await models(legacy, C)).toBe(200);
      expect(await models(legacy, B)).toBe(401);
      const live = (await legacy.deps.keys.list()).filter((key) => key.revokedAt === null).map((key) => key.name);
      expect(live).toEqual(['bootstrap']);
    } finally {
      await legacy.stop({ keepData: true });
    }
  });
});
