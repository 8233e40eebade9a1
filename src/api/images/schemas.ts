import { Type } from 'typebox';
import { IMAGE_MODELS } from '../../catalog/models.js';
import { OPENAI_IMAGE_SIZES, type OpenAIImagesRequest } from '../../protocols/openai-images/types.js';
import { modelKeyedValidator } from '../../validation/model-keyed.js';
import type { ModelLookup } from '../../contracts/model-lookup.js';

/**
 * POST /v1/images/generations: OpenAI's CreateImageRequest (openai.md §3) for the catalog's
 * image models. The spec shows no payload, so the rules are OpenAI's; other OpenAI fields
 * (quality, style, user…) are accepted. `stream: true` answers OpenAI's image stream events.
 */
const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });

export const ImagesRequestSchema = Type.Object(
  {
    model: enumOf(IMAGE_MODELS),
    prompt: Type.String({ minLength: 1 }),
    n: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    size: Type.Optional(enumOf(OPENAI_IMAGE_SIZES)),
    // OpenAI's dall-e default is `url`, applied by the route.
    response_format: Type.Optional(enumOf(['url', 'b64_json'] as const)),
    stream: Type.Optional(Type.Boolean({ description: 'Answer as an SSE stream of image_generation.completed events (OpenAI image streaming)' })),
  },
  { title: 'CreateImageRequest' },
);

const validateShape = modelKeyedValidator('images', ImagesRequestSchema);

export const validateImagesRequest = (body: unknown, catalog?: ModelLookup): OpenAIImagesRequest => validateShape(body, catalog) as OpenAIImagesRequest;
