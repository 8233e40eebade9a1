import type { OpenAICompatibleQuirks } from '../openai-compatible/quirks.js';

/** Ark chat is OpenAI-shaped; reasoning arrives as `reasoning_content`, usage only when asked. */
export const ARK_QUIRKS: OpenAICompatibleQuirks = {
  extraFinishReasons: {},
  failureFinishReasons: [],
  streamUsage: 'stream-options',
};
