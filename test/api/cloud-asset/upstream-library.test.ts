import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { volcengineArkSimulator } from '../../../src/providers/volcengine-ark/simulator.js';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/server.js';
import { call, startTestGateway, type TestGateway } from '../../helpers/gateway.js';

/** Asset actions against an upstream asset library through the signed Volcengine OpenAPI (issue 3). */
describe('cloud assets with an upstream asset library', () => {
  let gateway: TestGateway;
  let otherKey: string;
  const library = () => gateway.deps.simulators.get('ark-assets')!;

  beforeAll(async () => {
    gateway = await startTestGateway({ file: { channels: [{ name: 'ark-assets', vendor: 'volcengine-ark', models: { 'cloud-asset': 'ark' } }] } });
    otherKey = (await gateway.deps.keys.create({ name: 'other' })).secret;
  });
  afterAll(() => gateway.stop());

  it('creates upstream with a signed request, and deletes once', async () => {
    const created = await call(gateway, 'POST', '/cloud/asset/CreateAsset', { model: 'cloud-asset', AssetType: 'Image', URL: 'https://example.com/ref.png', Name: 'ref' });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({ Id: expect.stringMatching(/^asset-\d{14}-[a-z0-9]{5}$/), AssetType: 'Image', Status: 'Active' });
    const sent = library().requests.at(-1)!;
    expect(sent.query).toEqual({ Action: 'CreateAsset', Version: '2024-01-01' });
    expect(sent.headers.authorization).toMatch(/^HMAC-SHA256 Credential=simulator-ak\/\d{8}\/cn-beijing\/ark\/request, SignedHeaders=content-type;host;x-content-sha256;x-date, Signature=[0-9a-f]{64}$/);
    expect(sent.body).toEqual({ Name: 'ref', AssetType: 'Image', URL: 'https://example.com/ref.png' });

    const Id = created.json.Id as string;
    expect((await call(gateway, 'POST', '/cloud/asset/GetAsset', { model: 'cloud-asset', Id })).json.Id).toBe(Id);
    const other = await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id }, { authorization: `Bearer ${otherKey}` });
    expect(other.json).toEqual({ Id, Deleted: false });
    const deleted = await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id });
    expect(deleted.json).toEqual({ Id, Deleted: true });
    expect(library().requests.at(-1)!.query.Action).toBe('DeleteAsset');
    const before = library().requests.length;
    expect((await call(gateway, 'POST', '/cloud/asset/DeleteAsset', { model: 'cloud-asset', Id })).json).toEqual({ Id, Deleted: false });
    expect(library().requests.length).toBe(before); // nothing of ours left to delete: no upstream call
  });

  it('refuses base64 uploads, which only the local library stores', async () => {
    const response = await call(gateway, 'POST', '/cloud/asset/CreateAsset', { model: 'cloud-asset', AssetType: 'Image', Data: 'iVBORw0KGgo=', MimeType: 'image/png' });
    expect(response.status).toBe(400);
    expect(response.json.error.message).toContain("'Data'");
  });
});

describe('cloud assets with refused upstream credentials', () => {
  let simulator: RunningSimulator;
  let gateway: TestGateway;
  beforeAll(async () => {
    simulator = await startSimulator(volcengineArkSimulator);
    gateway = await startTestGateway({
      file: { channels: [{ name: 'ark-assets', vendor: 'volcengine-ark', base_url: simulator.url, access_key: 'simulator-ak', secret_key: 'wrong-secret', models: { 'cloud-asset': 'ark' } }] },
    });
  });
  afterAll(async () => {
    await gateway.stop();
    await simulator.close();
  });

  it('a signature the library rejects is a 502 that shows no credentials', async () => {
    const response = await call(gateway, 'POST', '/cloud/asset/CreateAsset', { model: 'cloud-asset', AssetType: 'Video', URL: 'https://example.com/a.mp4' });
    expect(response.status).toBe(502);
    expect(response.json.error.code).toBe('upstream_auth_failed');
    expect(response.text).not.toMatch(/wrong-secret|simulator-ak/);
  });
});
