import { randomBytes } from 'node:crypto';
import { signVolcengineRequest } from './openapi-signature.js';
import type { SimHandler, SimRequest } from '../../simulator/server.js';

/** The credentials the simulator accepts (what simulator channels send). */
const SIM_ACCESS_KEY = 'simulator-ak';
const SIM_SECRET_KEY = 'simulator-sk';

interface SimAsset {
  Id: string;
  Name?: string;
  AssetType?: string;
  URL?: string;
  Status: 'Active';
}

/**
 * A fake Volcengine OpenAPI for the Ark asset library: `POST /?Action=…&Version=2024-01-01`,
 * AK/SK HMAC-SHA256 signatures checked for real, answers in the `{ResponseMetadata, Result}`
 * envelope (volcengine-ark.md "Asset library"). Assets live in memory per simulator.
 */
export function volcengineOpenApiSimHandler(): SimHandler {
  const assets = new Map<string, SimAsset>();
  return async (req, res) => {
    const action = req.query.Action;
    if (req.method !== 'POST' || !action) return false;
    const meta = { RequestId: randomBytes(8).toString('hex'), Action: action, Version: req.query.Version ?? '', Service: 'ark', Region: 'cn-beijing' };
    const fail = (status: number, Code: string, Message: string) => res.json(status, { ResponseMetadata: { ...meta, Error: { Code, Message } } });
    if (req.query.Version !== '2024-01-01') return fail(400, 'InvalidParameter.Version', 'Version must be 2024-01-01'), true;
    if (!hasValidSignature(req)) return fail(401, 'SignatureDoesNotMatch', 'The request signature does not match'), true;
    const body = (req.body ?? {}) as Record<string, string | undefined>;
    switch (action) {
      case 'CreateAsset': {
        if (!body.URL || !body.AssetType) return fail(400, 'MissingParameter.URL', 'URL and AssetType are required'), true;
        const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
        const id = `asset-${stamp}-${randomBytes(3).toString('hex').slice(0, 5)}`;
        assets.set(id, { Id: id, Name: body.Name, AssetType: body.AssetType, URL: body.URL, Status: 'Active' });
        res.json(200, { ResponseMetadata: meta, Result: { Id: id } });
        return true;
      }
      case 'GetAsset':
      case 'DeleteAsset': {
        const asset = body.Id ? assets.get(body.Id) : undefined;
        if (!asset) return fail(404, 'NotFound.Asset', `Asset ${body.Id ?? ''} does not exist`), true;
        if (action === 'DeleteAsset') assets.delete(asset.Id);
        res.json(200, { ResponseMetadata: meta, Result: action === 'GetAsset' ? asset : {} });
        return true;
      }
      default:
        return fail(400, 'InvalidParameter.Action', `Unknown action ${action}`), true;
    }
  };
}

/** Recomputes the signature from what was received, with the simulator's own secret key. */
function hasValidSignature(req: SimRequest): boolean {
  const xDate = req.headers['x-date'] ?? '';
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(xDate);
  if (!match) return false;
  const now = Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!, +match[5]!, +match[6]!);
  const expected = signVolcengineRequest({
    method: req.method,
    host: req.headers.host ?? '',
    path: req.path,
    query: req.query,
    body: req.body === undefined ? '' : JSON.stringify(req.body),
    accessKey: SIM_ACCESS_KEY,
    secretKey: SIM_SECRET_KEY,
    region: 'cn-beijing',
    service: 'ark',
    now,
    contentType: req.headers['content-type'],
  });
  return expected.authorization === req.headers.authorization;
}
