import type { ResponsesViaChatQuirks } from '../openai-compatible/from-responses.js';

/**
 * Zhipu serves Responses through its chat API (zhipu.md): roles are system/user/assistant/tool,
 * reasoning is the `thinking` on/off switch (no effort levels; GLM-4.7 thinks by default), and
 * the Zhipu chat extras a Responses client may send (`thinking`, `seed`, `user_id`,
 * `request_id`) are passed on.
 */
export const ZHIPU_RESPONSES_QUIRKS: ResponsesViaChatQuirks = {
  developerRoleAs: 'system',
  reasoningEffort: 'thinking-switch',
  passThroughFields: ['thinking', 'seed', 'user_id', 'request_id'],
};
