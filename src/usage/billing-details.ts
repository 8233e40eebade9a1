/** What prices by size and resolution read from a request body (issue 21). */
export interface BillingDetails {
  imageSize: string | undefined;
  imageQuality: string | undefined;
  videoResolution: string | undefined;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

/**
 * The image size and quality (OpenAI's `size`/`quality`, Gemini's `imageConfig.imageSize`) and the
 * video resolution (`resolution`, also inside `parameters`; Kling's `mode`: std or pro) a request
 * asks for. Read only for requests that made images or videos.
 */
export function billingDetailsOf(body: unknown): BillingDetails {
  const record = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const config = (record.generationConfig ?? record.generation_config) as Record<string, unknown> | undefined;
  const imageConfig = (config?.imageConfig ?? config?.image_config) as Record<string, unknown> | undefined;
  const parameters = record.parameters as Record<string, unknown> | undefined;
  return {
    imageSize: text(record.size) ?? text(imageConfig?.imageSize) ?? text(imageConfig?.image_size),
    imageQuality: text(record.quality),
    videoResolution: text(record.resolution) ?? text(parameters?.resolution) ?? text(record.mode),
  };
}
