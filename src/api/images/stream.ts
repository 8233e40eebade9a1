import type { FastifyReply, FastifyRequest } from 'fastify';
import { openClientStream } from '../../gateway/client-stream.js';
import type { OpenAIImagesRequest, OpenAIImagesResponse } from '../../protocols/openai-images/types.js';
import { formatSse } from '../../sse/write.js';

/**
 * `stream: true` answered the way OpenAI's Images API streams (the `openai` SDK's
 * `ImageGenStreamEvent`): one `image_generation.completed` event per image, with the image
 * inline. The upstreams behind this endpoint (Gemini, Ark, the simulators) return whole images,
 * so there are no `image_generation.partial_image` events before it; a client that asked for
 * partial images still gets the final ones (docs/decisions.md).
 */
export async function sendImageStream(request: FastifyRequest, reply: FastifyReply, body: OpenAIImagesRequest, response: OpenAIImagesResponse): Promise<void> {
  const writer = openClientStream(request, reply);
  request.gw.firstTokenAt = Date.now();
  const perImage = response.usage && response.data.length > 0 ? splitUsage(response.usage, response.data.length) : undefined;
  for (const image of response.data) {
    const event = {
      type: 'image_generation.completed',
      b64_json: image.b64_json ?? '',
      created_at: response.created,
      size: body.size ?? 'auto',
      quality: 'auto',
      background: 'auto',
      output_format: 'png',
      ...(perImage ? { usage: perImage } : {}),
    };
    const drained = writer.write(formatSse({ event: event.type, data: event }));
    if (drained) await drained;
  }
  writer.end();
}

const splitUsage = (usage: NonNullable<OpenAIImagesResponse['usage']>, count: number) => ({
  total_tokens: Math.round(usage.total_tokens / count),
  input_tokens: Math.round(usage.input_tokens / count),
  output_tokens: Math.round(usage.output_tokens / count),
});
