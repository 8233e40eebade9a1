import { LIMITS, NO_NUL } from '../../validation/limits.js';
import { Type, type Static } from 'typebox';
import { ASSET_MODEL } from '../../catalog/models.js';
import { GatewayError } from '../../errors.js';
import { compileValidator } from '../../validation/compile.js';

/**
 * The /cloud/asset actions, in the PascalCase style of the Ark asset library
 * (volcengine-ark.md "Asset library"; the neutral `{model, Id}` → `{Id, Deleted}` is an aggregator
 * simplification). Every body names `model: "cloud-asset"`. Unknown fields are accepted and
 * ignored, as on every endpoint (docs/decisions.md).
 */
const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });

/** `asset-<yyyymmddhhmmss>-<5 lowercase alphanumerics>`, e.g. asset-20260528140922-d9646. */
export const ASSET_ID_PATTERN = '^asset-[0-9]{14}-[a-z0-9]{5}$';
export const ASSET_TYPES = ['Image', 'Video', 'Audio'] as const;
export type AssetType = (typeof ASSET_TYPES)[number];
/** Decoded size limit of an uploaded `Data` asset. */
export const MAX_ASSET_BYTES = 20 * 1024 * 1024;

const Model = Type.Unsafe<typeof ASSET_MODEL>({ type: 'string', enum: [ASSET_MODEL] });
const AssetId = Type.String({ pattern: ASSET_ID_PATTERN });

export const DeleteAssetRequest = Type.Object({ model: Model, Id: AssetId });
export const GetAssetRequest = DeleteAssetRequest;
export const ListAssetsRequest = Type.Object(
  {
    model: Model,
    PageNumber: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMITS.pageNumber, default: 1 })),
    PageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
  },
);
export const CreateAssetRequest = Type.Object(
  {
    model: Model,
    Name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: NO_NUL })),
    AssetType: enumOf(ASSET_TYPES),
    /** A public http(s) URL, recorded as the asset's source (not fetched). */
    URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s\\u0000]+$', maxLength: 4096 })),
    /** Base64 file content (no data: prefix), stored by the gateway; needs MimeType. */
    Data: Type.Optional(Type.String({ minLength: 1, pattern: '^[A-Za-z0-9+/]+={0,2}$' })),
    MimeType: Type.Optional(Type.String({ pattern: '^(image|video|audio)/[A-Za-z0-9.+-]+$' })),
  },
);

export type CreateAssetBody = Static<typeof CreateAssetRequest>;
export type ListAssetsBody = Static<typeof ListAssetsRequest>;
export type AssetIdBody = Static<typeof DeleteAssetRequest>;

export const validateAssetId = compileValidator(DeleteAssetRequest);
export const validateListAssets = compileValidator(ListAssetsRequest);
const validateCreateShape = compileValidator(CreateAssetRequest);

const MIME_PREFIX: Record<AssetType, string> = { Image: 'image/', Video: 'video/', Audio: 'audio/' };

/** Exactly one source: `URL`, or `Data` with a `MimeType` matching `AssetType`. */
export function validateCreateAsset(body: unknown): CreateAssetBody {
  const request = validateCreateShape(body);
  const invalid = (param: string, message: string) => new GatewayError('GW_REQ_INVALID_PARAM', message, { param });
  if ((request.URL === undefined) === (request.Data === undefined)) throw invalid('URL', "Exactly one of 'URL' and 'Data' is required");
  if (request.Data !== undefined && request.MimeType === undefined) throw invalid('MimeType', "'MimeType' is required with 'Data'");
  if (request.MimeType !== undefined && !request.MimeType.startsWith(MIME_PREFIX[request.AssetType])) {
    throw invalid('MimeType', `'MimeType' must be ${MIME_PREFIX[request.AssetType]}* for AssetType ${request.AssetType}`);
  }
  if (request.Data !== undefined && Math.floor((request.Data.length * 3) / 4) > MAX_ASSET_BYTES + 2) {
    throw new GatewayError('GW_REQ_TOO_LARGE', `'Data' is larger than ${MAX_ASSET_BYTES} bytes`, { param: 'Data' });
  }
  return request;
}
