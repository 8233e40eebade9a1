import { describe, expect, it } from 'vitest';
import { signVolcengineRequest } from '../../../src/providers/volcengine-ark/openapi-signature.js';
import { arkAssets } from '../../../src/providers/volcengine-ark/asset.js';
import { arkSignRequest } from '../../../src/providers/volcengine-ark/endpoint.js';
import { GatewayError } from '../../../src/errors.js';
import { loadCases } from '../../helpers/golden.js';

describe('Volcengine OpenAPI signing and the Ark asset library (issue 3)', () => {
  it('signs exactly as an independent implementation of the documented algorithm', () => {
    const golden = loadCases('volcengine-ark', (name) => name === 'openapi-signature')[0]!;
    const { input, expected } = golden.meta as unknown as {
      input: Parameters<typeof signVolcengineRequest>[0] & { now: string };
      expected: Record<string, string>;
    };
    const headers = signVolcengineRequest({ ...input, now: Date.parse(input.now) });
    expect(headers).toMatchObject(expected);
    expect(headers.host).toBe('open.volcengineapi.com');
    // Any change to what is signed changes the signature.
    expect(signVolcengineRequest({ ...input, now: Date.parse(input.now), body: '{}' }).authorization).not.toBe(expected.authorization);
  });

  it("signs for the channel's host and region: BytePlus and regions other than cn-beijing (issue 14)", () => {
    const request = { method: 'POST', url: new URL('https://open.byteplusapi.com/?Action=ListAssets&Version=2024-01-01'), body: '{}' };
    const keys = { access_key: 'AK', secret_key: 'SK' };
    const byteplus = arkSignRequest({ ...keys, region: 'ap-southeast-1' }, request, Date.parse('2026-11-23T00:00:00Z'));
    expect(byteplus.host).toBe('open.byteplusapi.com');
    expect(byteplus.authorization).toContain('/20261123/ap-southeast-1/ark/request');
    expect(arkSignRequest(keys, request, Date.parse('2026-11-23T00:00:00Z')).authorization).toContain('/cn-beijing/ark/request');
  });

  it('sends each action as a signed POST /?Action=…&Version=2024-01-01 with only its native fields', () => {
    expect(arkAssets.toAssetCall('DeleteAsset', { model: 'cloud-asset', Id: 'asset-20260528140922-d9646' })).toEqual({
      method: 'POST',
      path: '/',
      query: { Action: 'DeleteAsset', Version: '2024-01-01' },
      body: { Id: 'asset-20260528140922-d9646' },
      auth: 'request-signature',
    });
    expect(arkAssets.toAssetCall('CreateAsset', { model: 'cloud-asset', AssetType: 'Image', URL: 'https://x/a.png', Name: 'a' }).body).toEqual({
      Name: 'a',
      AssetType: 'Image',
      URL: 'https://x/a.png',
    });
  });

  it('reads the {ResponseMetadata, Result} envelope and maps its error codes', () => {
    expect(arkAssets.fromAssetResponse(200, { ResponseMetadata: { RequestId: 'r' }, Result: { Id: 'asset-1' } })).toEqual({ kind: 'ok', result: { Id: 'asset-1' } });
    expect(arkAssets.fromAssetResponse(404, { ResponseMetadata: { Error: { Code: 'NotFound.Asset', Message: 'no' } } })).toEqual({ kind: 'not-found' });
    const statusOf = (code: string, status = 400) => {
      try {
        arkAssets.fromAssetResponse(status, { ResponseMetadata: { Error: { Code: code, Message: `${code} at https://open.volcengineapi.com` } } });
      } catch (error) {
        return [(error as GatewayError).status, (error as GatewayError).message];
      }
      return undefined;
    };
    expect(statusOf('InvalidParameter.Id')).toEqual([400, 'InvalidParameter.Id at [url]']);
    expect(statusOf('AccessDenied', 403)![0]).toBe(502);
    expect(statusOf('SignatureDoesNotMatch', 401)![0]).toBe(502);
    expect(statusOf('RequestLimitExceeded', 429)![0]).toBe(429);
    expect(statusOf('InternalError', 500)![0]).toBe(502);
  });
});
