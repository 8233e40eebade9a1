import type { OpenAICompatibleQuirks } from '../openai-compatible/quirks.js';

/**
 * GLM finishes with `sensitive` when content safety blocks the output and `network_error` when
 * inference failed (https://docs.bigmodel.cn, finish_reason text); usage rides on the final chunk.
 */
export const ZHIPU_QUIRKS: OpenAICompatibleQuirks = {
  extraFinishReasons: { sensitive: 'content_filter' },
  failureFinishReasons: ['network_error'],
  streamUsage: 'always',
};
