import type { ResponsesViaChatQuirks } from '../openai-compatible/from-responses.js';
import { toZhipuWebSearch } from './web-search.js';

/**
 * Zhipu serves Responses through its chat API (zhipu.md): roles are system/user/assistant/tool,
 * reasoning is the `thinking` on/off switch (no effort levels; GLM-4.7 thinks by default),
 * earlier reasoning goes back as `reasoning_content` (interleaved thinking, since GLM-4.5), web
 * search is GLM's own `web_search` tool (web-search.ts), and the Zhipu chat extras a Responses
 * client may send (`thinking`, `seed`, `user_id`, `request_id`) are passed on.
 */
export const ZHIPU_RESPONSES_QUIRKS: ResponsesViaChatQuirks = {
  developerRoleAs: 'system',
  reasoningEffort: 'thinking-switch',
  takesReasoningContent: true,
  webSearch: toZhipuWebSearch,
  passThroughFields: ['thinking', 'seed', 'user_id', 'request_id'],
};
