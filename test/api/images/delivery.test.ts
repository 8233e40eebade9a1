import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStoreUnavailable } from '../../../src/db/store-errors.js';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

/** Issue 13 (low, disk full): an image that could not be stored is not delivered, so it is not charged. */
describe('images are charged only when delivered', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ file: { prices: { 'gamma-3.1-flash-image': { per_image: 0.04 } } } });
  });
  afterAll(() => gateway.stop());

  const events = async () => {
    await gateway.deps.usage.flush();
    return gateway.deps.db.selectFrom('usage_events').select(['status', 'images', 'cost_usd']).where('family', '=', 'images').orderBy('id').execute();
  };

  it('a failed store answers an error and records no images and no cost; a stored one is charged', async () => {
    const body = { model: 'gamma-3.1-flash-image', prompt: 'a cat', size: '256x256', response_format: 'url', n: 2 };
    // The images folder cannot be created: a file stands where it should be (root ignores permissions, so no chmod).
    mkdirSync(join(gateway.dataDir, 'media'), { recursive: true });
    writeFileSync(join(gateway.dataDir, 'media', 'images'), 'not a folder');
    const failed = await call(gateway, 'POST', '/v1/images/generations', body);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.json.error).toBeDefined();
    expect((await events()).at(-1)).toMatchObject({ images: 0, cost_usd: 0 });

    const inline = await call(gateway, 'POST', '/v1/images/generations', { ...body, response_format: 'b64_json' });
    expect(inline.status).toBe(200);
    expect((await events()).at(-1)).toMatchObject({ status: 200, images: 2, cost_usd: 0.08 });
  });

  it('a full or read-only disk is "unavailable" (503 with Retry-After), not an internal error', () => {
    for (const code of ['ENOSPC', 'EDQUOT', 'EROFS', 'EIO']) expect(isStoreUnavailable(Object.assign(new Error('x'), { code }))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(false);
  });
});
