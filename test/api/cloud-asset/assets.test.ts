import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const ASSET_ID = /^asset-\d{14}-[a-z0-9]{5}$/;
const PNG_BASE64 = Buffer.from('\x89PNG\r\n\x1a\n-not-really-a-png', 'latin1').toString('base64');

describe('/cloud/asset actions (local asset library)', () => {
  let gateway: TestGateway;
  let otherKey: string;
  beforeAll(async () => {
    gateway = await startTestGateway();
    otherKey = (await gateway.deps.keys.create({ name: 'other' })).secret;
  });
  afterAll(() => gateway.stop());

  const createUrlAsset = () => call(gateway, 'POST', '/cloud/asset/CreateAsset', { model: 'cloud-asset', Name: 'portrait', AssetType: 'Image', URL: 'https://example.com/p.png' });

  it('creates, deletes, and deletes again (Deleted false)', async () => {
    const created = await createUrlAsset();
    expect(created.status, created.text).toBe(200);
    expect(created.json).toEqual({
      Id: expect.stringMatching(ASSET_ID),
      Name: 'portrait',
      AssetType: 'Image',
      Status: 'Active',
      URL: 'https://example.com/p.png',
      MimeType: null,
      Size: null,
      CreateTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const id = created.json.Id;
    const deleted = await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id: id });
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ Id: id, Deleted: true });
    const again = await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id: id });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ Id: id, Deleted: false });
    expect((await call(gateway, 'POST', '/cloud/asset/GetAsset', { model: 'cloud-asset', Id: id })).status).toBe(404);
  });

  it("answers Deleted false for an unknown id and for another key's asset, which survives", async () => {
    const unknown = await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id: 'asset-20260528140922-d9646' });
    expect(unknown.json).toEqual({ Id: 'asset-20260528140922-d9646', Deleted: false });
    const created = await createUrlAsset();
    const other = await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id: created.json.Id }, { authorization: `Bearer ${otherKey}` });
    expect(other.status).toBe(200);
    expect(other.json).toEqual({ Id: created.json.Id, Deleted: false });
    const otherGet = await call(gateway, 'POST', '/cloud/asset/GetAsset', { model: 'cloud-asset', Id: created.json.Id }, { authorization: `Bearer ${otherKey}` });
    expect(otherGet.status).toBe(404);
    expect(otherGet.json.error.code).toBe('not_found');
    const mine = await call(gateway, 'POST', '/cloud/asset/GetAsset', { model: 'cloud-asset', Id: created.json.Id });
    expect(mine.json.Status).toBe('Active');
  });

  it('stores uploaded Data under <dataDir>/assets and removes it on delete', async () => {
    const created = await call(gateway, 'POST', '/cloud/asset/CreateAsset', { model: 'cloud-asset', AssetType: 'Image', Data: PNG_BASE64, MimeType: 'image/png' });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({ AssetType: 'Image', MimeType: 'image/png', Size: Buffer.from(PNG_BASE64, 'base64').length, URL: null, Name: null });
    const path = join(gateway.dataDir, 'assets', created.json.Id);
    expect(existsSync(path)).toBe(true);
    await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id: created.json.Id });
    expect(existsSync(path)).toBe(false);
  });

  it('lists the key’s live assets in pages', async () => {
    const fresh = await startTestGateway();
    try {
      for (let i = 0; i < 3; i++) await call(fresh, 'POST', '/cloud/asset/CreateAsset', { model: 'cloud-asset', AssetType: 'Video', URL: `https://example.com/${i}.mp4` });
      const page1 = await call(fresh, 'POST', '/cloud/asset/ListAssets', { model: 'cloud-asset', PageNumber: 1, PageSize: 2 });
      expect(page1.json).toMatchObject({ PageNumber: 1, PageSize: 2, TotalCount: 3 });
      expect(page1.json.Items).toHaveLength(2);
      const page2 = await call(fresh, 'POST', '/cloud/asset/ListAssets', { model: 'cloud-asset', PageNumber: 2, PageSize: 2 });
      expect(page2.json.Items).toHaveLength(1);
      const all = new Set([...page1.json.Items, ...page2.json.Items].map((a: { Id: string }) => a.Id));
      expect(all.size).toBe(3);
      const defaults = await call(fresh, 'POST', '/cloud/asset/ListAssets', { model: 'cloud-asset' });
      expect(defaults.json).toMatchObject({ PageNumber: 1, PageSize: 10, TotalCount: 3 });
      expect((await call(fresh, 'POST', '/cloud/asset/ListAssets', { model: 'cloud-asset', PageSize: 101 })).status).toBe(400);
    } finally {
      await fresh.stop();
    }
  });

  /** [title, path, body, field the message names] — all 400 in the general envelope. */
  const BAD: Array<[string, string, Record<string, unknown>, string]> = [
    ['malformed Id (no suffix)', 'DeleteAsset', { model: 'cloud-asset', Id: 'asset-20260528140922' }, 'Id'],
    ['malformed Id (upper case)', 'DeleteAsset', { model: 'cloud-asset', Id: 'asset-20260528140922-D9646' }, 'Id'],
    ['malformed Id (short timestamp)', 'DeleteAsset', { model: 'cloud-asset', Id: 'asset-202605281409-d9646' }, 'Id'],
    ['malformed Id (group id)', 'DeleteAsset', { model: 'cloud-asset', Id: 'group-20260528140922-d9646' }, 'Id'],
    ['Id missing', 'DeleteAsset', { model: 'cloud-asset' }, 'Id'],
    ['Id a number', 'DeleteAsset', { model: 'cloud-asset', Id: 42 }, 'Id'],
    ['wrong model', 'DeleteAsset', { model: 'volc-asset', Id: 'asset-20260528140922-d9646' }, 'model'],
    ['model missing', 'DeleteAsset', { Id: 'asset-20260528140922-d9646' }, 'model'],
    ['wrong model on GetAsset', 'GetAsset', { model: 'zeta-1.0-r2v', Id: 'asset-20260528140922-d9646' }, 'model'],
    ['URL and Data together', 'CreateAsset', { model: 'cloud-asset', AssetType: 'Image', URL: 'https://e.com/a.png', Data: PNG_BASE64, MimeType: 'image/png' }, 'URL'],
    ['neither URL nor Data', 'CreateAsset', { model: 'cloud-asset', AssetType: 'Image' }, 'URL'],
    ['Data without MimeType', 'CreateAsset', { model: 'cloud-asset', AssetType: 'Image', Data: PNG_BASE64 }, 'MimeType'],
    ['MimeType not matching AssetType', 'CreateAsset', { model: 'cloud-asset', AssetType: 'Audio', Data: PNG_BASE64, MimeType: 'image/png' }, 'MimeType'],
    ['AssetType outside the enum', 'CreateAsset', { model: 'cloud-asset', AssetType: 'Document', URL: 'https://e.com/a.pdf' }, 'AssetType'],
    ['Data not base64', 'CreateAsset', { model: 'cloud-asset', AssetType: 'Image', Data: 'not base64!', MimeType: 'image/png' }, 'Data'],
  ];

  it.each(BAD)('%s → 400', async (_title, action, body, field) => {
    const response = await call(gateway, 'POST', `/cloud/asset/${action}`, body);
    expect(response.status, response.text).toBe(400);
    expect(response.json).toEqual({ error: { message: expect.stringContaining(field), type: 'invalid_request_error', code: 'invalid_parameter' } });
  });

  it('needs a key (401) and a key allowed to use cloud-asset (403)', async () => {
    const noKey = await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id: 'asset-20260528140922-d9646' }, {});
    expect(noKey.status).toBe(401);
    const { secret } = await gateway.deps.keys.create({ name: 'video-only', models: ['zeta-1.0-r2v'] });
    const denied = await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id: 'asset-20260528140922-d9646' }, { authorization: `Bearer ${secret}` });
    expect(denied.status).toBe(403);
  });
});
