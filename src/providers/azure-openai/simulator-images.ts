import { renderPng } from '../../simulator/png-image.js';
import type { SimErrorBody, SimHandler } from '../../simulator/server.js';
import { countTokens } from '../../simulator/text.js';

/** gpt-image-1's output tokens for one square image at medium quality (OpenAI's image-token table). */
const OUTPUT_TOKENS = 1056;
/** The simulator draws at most this long a side, whatever size is asked (a real PNG, quickly). */
const MAX_SIDE = 1024;

/**
 * `images/generations` of a gpt-image deployment, v1 form: one base64 PNG of the asked size
 * (`auto` and absent: 1024x1024) with gpt-image's token usage; no `url` answers, as gpt-image.
 */
export function azureImagesSimHandler(basePath: string, errorBody: SimErrorBody): SimHandler {
  return async (req, res) => {
    if (req.method !== 'POST' || req.path !== `${basePath}/images/generations`) return false;
    const body = req.body as { model?: unknown; prompt?: unknown; size?: unknown; n?: unknown } | undefined;
    if (!body || typeof body.model !== 'string' || typeof body.prompt !== 'string' || body.prompt === '') {
      res.json(400, errorBody(400, 'model and a non-empty prompt are required'));
      return true;
    }
    const size = typeof body.size === 'string' && body.size !== 'auto' ? /^(\d+)x(\d+)$/.exec(body.size) : ['1024x1024', '1024', '1024'];
    if (!size) {
      res.json(400, errorBody(400, `Invalid size '${String(body.size)}'`));
      return true;
    }
    const count = typeof body.n === 'number' ? body.n : 1;
    const png = renderPng(Math.min(Number(size[1]), MAX_SIDE), Math.min(Number(size[2]), MAX_SIDE)).toString('base64');
    const input = countTokens(body.prompt);
    res.json(200, {
      created: Math.floor(Date.now() / 1000),
      data: Array.from({ length: count }, () => ({ b64_json: png })),
      usage: { input_tokens: input, output_tokens: OUTPUT_TOKENS * count, total_tokens: input + OUTPUT_TOKENS * count, input_tokens_details: { text_tokens: input, image_tokens: 0 } },
    });
    return true;
  };
}
