import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { generalErrors } from '../general/errors.js';
import { imagesFacts } from './facts.js';
import { GatewayError } from '../../errors.js';
import type { OpenAIImageData, OpenAIImagesRequest, OpenAIImagesResponse, OpenAIImagesUsage } from '../../protocols/openai-images/types.js';
import type { TranslatorPair } from '../../contracts/translator.js';
import type { Usage } from '../../contracts/usage.js';
import { dispatchJson } from '../../gateway/dispatch.js';
import { admit } from '../../plugins/rate-limit.js';
import { toFastifyValidator } from '../../validation/compile.js';
import { ImagesRequestSchema, validateImagesRequest } from './schemas.js';
import { readImage, sniffImageExtension, storeImage } from './media-files.js';
import { sendImageStream } from './stream.js';

declare module '../../contracts/translator.js' {
  interface FamilyPairs {
    images: TranslatorPair<OpenAIImagesRequest, OpenAIImagesResponse>;
  }
}

/** POST /v1/images/generations (spec §6, OpenAI's Images API) and the public links it hands out. */
export async function imagesRoutes(app: FastifyInstance): Promise<void> {
  app.post(
    '/v1/images/generations',
    {
      config: { family: 'images', errors: generalErrors, operation: 'image_generation' },
      schema: {
        summary: 'Create images',
        description: 'OpenAI Images API shape. `n` images come from `n` upstream calls; `response_format` `url` links to `/media/images/…`, `b64_json` inlines the image; without it each item carries both.',
        tags: ['images'],
        security: [{ bearer: [] }],
        body: ImagesRequestSchema,
      },
      validatorCompiler: () => toFastifyValidator((body) => validateImagesRequest(body, app.gateway.catalog)),
    },
    async (request, reply) => generateImages(request, reply),
  );

  app.get('/media/images/:file', { config: { isPublic: true }, schema: { hide: true } }, async (request, reply) => {
    const { file } = request.params as { file: string };
    const image = await readImage(app.gateway.config.dataDir, file);
    if (!image) return reply.callNotFound();
    return reply
      .type(image.contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(image.bytes);
  });
}

async function generateImages(request: FastifyRequest, reply: FastifyReply): Promise<OpenAIImagesResponse | undefined> {
  const body = request.body as OpenAIImagesRequest;
  await admit(request, reply, body.model, { facts: imagesFacts(body) });
  const n = body.n ?? 1;
  // Each upstream call watches the client connection; n of them exceed Node's default of 10 listeners.
  reply.raw.setMaxListeners(reply.raw.getMaxListeners() + n);
  request.raw.setMaxListeners(request.raw.getMaxListeners() + n);
  // Charged only for what is delivered (issue 13): each call records its usage as it lands, so
  // the request's usage is cleared until every image is stored and the answer is ready.
  let results: Awaited<ReturnType<typeof dispatchJson<'images'>>>[];
  let data: OpenAIImageData[];
  try {
    results = await Promise.all(Array.from({ length: n }, () => dispatchJson({ family: 'images', model: body.model, body, request, reply })));
    request.gw.usage = undefined;
    const generated = results.flatMap((r) => r.body.data);
    // A stream carries each image inline, as OpenAI's image stream events do.
    data = body.response_format === 'b64_json' || body.stream ? generated : await Promise.all(generated.map((d) => toUrl(request, d, { keepBase64: body.response_format === undefined })));
  } catch (error) {
    request.gw.usage = undefined;
    throw error;
  }
  request.gw.usage = results.map((r) => r.usage).reduce(addUsage);
  const response: OpenAIImagesResponse = { created: results[0]!.body.created, data };
  const usages = results.map((r) => r.body.usage);
  if (usages.every((u): u is OpenAIImagesUsage => u !== undefined)) response.usage = usages.reduce(addImagesUsage);
  if (!body.stream) return response;
  await sendImageStream(request, reply, body, response);
  return undefined;
}

/**
 * Stores the image under the data directory and links to it on our public GET route. Without a
 * response_format the item keeps its b64_json beside the url: SDKs that only read b64_json
 * (gpt-image style, e.g. the Vercel AI SDK, which also refuses to fetch loopback URLs) and those
 * that read url both work unchanged (docs/decisions.md).
 */
async function toUrl(request: FastifyRequest, item: OpenAIImageData, options: { keepBase64: boolean }): Promise<OpenAIImageData> {
  const bytes = Buffer.from(item.b64_json ?? '', 'base64');
  const extension = sniffImageExtension(bytes);
  if (!extension) throw new GatewayError('GW_UPSTREAM_BAD_RESPONSE', 'The upstream returned image data in an unknown format');
  const gateway = request.server.gateway;
  const name = await storeImage(gateway.config.dataDir, bytes, extension);
  const { b64_json: _b64, ...rest } = item;
  const url = `${gateway.publicUrl(request)}/media/images/${name}`;
  return options.keepBase64 ? { ...item, url } : { ...rest, url };
}

const addUsage = (a: Usage, b: Usage): Usage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  totalTokens: a.totalTokens + b.totalTokens,
  images: (a.images ?? 0) + (b.images ?? 0),
});

function addImagesUsage(a: OpenAIImagesUsage, b: OpenAIImagesUsage): OpenAIImagesUsage {
  const sum: OpenAIImagesUsage = {
    total_tokens: a.total_tokens + b.total_tokens,
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
  };
  if (a.input_tokens_details && b.input_tokens_details) {
    sum.input_tokens_details = {
      text_tokens: a.input_tokens_details.text_tokens + b.input_tokens_details.text_tokens,
      image_tokens: a.input_tokens_details.image_tokens + b.input_tokens_details.image_tokens,
    };
  }
  return sum;
}
