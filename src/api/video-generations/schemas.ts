import { Type, type Static } from 'typebox';
import { VIDEO_MODELS } from '../../catalog/models.js';
import { GatewayError } from '../../errors.js';
import type { VideoGenerationRequest } from '../../protocols/video-generations/types.js';
import { modelKeyedValidator } from '../../validation/model-keyed.js';
import type { ModelLookup } from '../../contracts/model-lookup.js';

/**
 * POST /v1/video/generations (spec §4). Decisions where the spec is silent (docs in the report):
 * - Required: `model`, `prompt`, `images` — what the upstream needs to create a task at all.
 * - The five tuning fields may sit at the top level or inside `parameters` (DashScope-native
 *   placement) with the same rules. Set in both places, they must be equal; different values are
 *   a 400 naming both, since picking one silently would hide a client bug.
 * - Unknown top-level fields are accepted, as on every endpoint (docs/decisions.md), but since
 *   this body is translated rather than forwarded they go nowhere. Inside `parameters` only the
 *   five tuning fields are allowed: that object is defined as holding the same parameters, so
 *   anything else there (e.g. `prompt`) is a client mistake and a 400.
 * - Images are http(s) URLs or `data:image/…;base64,` URLs (both accepted by DashScope); the
 *   gateway passes them on and never fetches them.
 */
/** The longest video a task may ask for (seconds). */
export const MAX_VIDEO_SECONDS = 15;

const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });

export const RESOLUTIONS = ['720P', '1080P'] as const;
export const RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4'] as const;

const tuning = {
  resolution: Type.Optional(enumOf(RESOLUTIONS)),
  ratio: Type.Optional(enumOf(RATIOS)),
  duration: Type.Optional(Type.Integer({ minimum: 3, maximum: MAX_VIDEO_SECONDS, description: 'Seconds' })),
  watermark: Type.Optional(Type.Boolean({ description: 'Adds the model watermark bottom-right' })),
  seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647 })),
};
const TUNING_FIELDS = Object.keys(tuning) as Array<keyof typeof tuning>;

const ImageUrl = Type.String({
  pattern: '^(https?://[^\\s]+|data:image/[A-Za-z0-9.+-]+;base64,[A-Za-z0-9+/=]+)$',
  description: 'An http(s) image URL or a data:image/...;base64, URL',
});

export const VideoGenerationCreateRequest = Type.Object(
  {
    model: enumOf(VIDEO_MODELS),
    prompt: Type.String({ minLength: 1 }),
    images: Type.Array(ImageUrl, { minItems: 1, maxItems: 3 }),
    ...tuning,
    parameters: Type.Optional(Type.Object(tuning, { additionalProperties: false, description: 'The same tuning fields, DashScope-native placement' })),
  },
);
export type VideoGenerationCreateBody = Static<typeof VideoGenerationCreateRequest>;

const validateShape = modelKeyedValidator('video-generations', VideoGenerationCreateRequest);

/** Validates, then merges `parameters` into the top level (see the rules above). */
export function validateVideoGenerationRequest(body: unknown, catalog?: ModelLookup): VideoGenerationRequest {
  const { model, prompt, images, resolution, ratio, duration, watermark, seed, parameters } = validateShape(body, catalog);
  const request: Record<string, unknown> = { model, prompt, images, resolution, ratio, duration, watermark, seed };
  for (const field of TUNING_FIELDS) {
    const nested = parameters?.[field];
    if (nested === undefined) continue;
    if (request[field] !== undefined && request[field] !== nested) {
      throw new GatewayError('GW_REQ_INVALID_PARAM', `'parameters.${field}' (${String(nested)}) conflicts with '${field}' (${String(request[field])}); set it in one place`, { param: `parameters.${field}` });
    }
    request[field] = nested;
  }
  // Unset fields are left out, not stored as undefined.
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined)) as unknown as VideoGenerationRequest;
}
